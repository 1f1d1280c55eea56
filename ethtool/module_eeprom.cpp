// SPDX-License-Identifier: Apache-2.0
#include "ethtool/module_eeprom.hpp"

#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>

#include <cerrno>

namespace roced {

namespace {

constexpr uint8_t kI2cAddress = 0x50;  // the module's memory map (SFF-8636, CMIS)

void add_read(nl_msg* message, const EepromRead& read) {
  nlattr* header = nla_nest_start(message, ETHTOOL_A_MODULE_EEPROM_HEADER);
  nla_put_string(message, ETHTOOL_A_HEADER_DEV_NAME, read.netdev.c_str());
  nla_nest_end(message, header);
  nla_put_u32(message, ETHTOOL_A_MODULE_EEPROM_OFFSET, read.offset);
  nla_put_u32(message, ETHTOOL_A_MODULE_EEPROM_LENGTH, read.length);
  nla_put_u8(message, ETHTOOL_A_MODULE_EEPROM_PAGE, read.page);
  nla_put_u8(message, ETHTOOL_A_MODULE_EEPROM_BANK, 0);
  nla_put_u8(message, ETHTOOL_A_MODULE_EEPROM_I2C_ADDRESS, kI2cAddress);
}

std::string describe(const EepromRead& read) {
  return "module EEPROM of " + read.netdev + " (page " + std::to_string(read.page) + ", offset " +
         std::to_string(read.offset) + ")";
}

// eeprom_fill_reply: the bytes in ETHTOOL_A_MODULE_EEPROM_DATA, as many as the driver read.
Result<std::vector<uint8_t>> parse_data(nlmsghdr* header, const EepromRead& read) {
  nlattr* table[ETHTOOL_A_MODULE_EEPROM_MAX + 1];
  if (nlmsg_parse(header, GENL_HDRLEN, table, ETHTOOL_A_MODULE_EEPROM_MAX, nullptr) != 0 ||
      table[ETHTOOL_A_MODULE_EEPROM_DATA] == nullptr) {
    return Error{EBADMSG, describe(read) + ": malformed answer"};
  }
  const nlattr* data = table[ETHTOOL_A_MODULE_EEPROM_DATA];
  const auto length = static_cast<uint32_t>(nla_len(data));
  if (length != read.length) {
    return Error{EIO, describe(read) + ": the module answered " + std::to_string(length) + " of " +
                          std::to_string(read.length) + " bytes"};
  }
  const auto* bytes = static_cast<const uint8_t*>(nla_data(data));
  return std::vector<uint8_t>(bytes, bytes + length);
}

}  // namespace

std::vector<Result<std::vector<uint8_t>>> ModuleEepromReader::read(
    std::span<const EepromRead> reads, std::chrono::milliseconds timeout) {
  std::vector<NlMsgPtr> requests;
  std::vector<std::string> contexts;
  for (const EepromRead& read : reads) {
    auto message = genl_.request(ETHTOOL_MSG_MODULE_EEPROM_GET);
    if (!message) {
      return std::vector<Result<std::vector<uint8_t>>>(reads.size(), message.error());
    }
    add_read(message->get(), read);
    requests.push_back(std::move(*message));
    contexts.push_back(describe(read));
  }
  auto answers = genl_.exchange(requests, contexts, timeout);
  std::vector<Result<std::vector<uint8_t>>> results;
  results.reserve(reads.size());
  for (size_t i = 0; i < reads.size(); ++i) {
    if (!answers[i]) {
      results.push_back(answers[i].error());
    } else {
      results.push_back(parse_data(answers[i]->header(), reads[i]));
    }
  }
  return results;
}

}  // namespace roced
