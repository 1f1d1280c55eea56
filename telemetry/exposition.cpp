// SPDX-License-Identifier: Apache-2.0
#include "telemetry/exposition.hpp"

#include <charconv>
#include <cmath>
#include <limits>

namespace roced::telemetry {

namespace {

// Label values escape backslash, double quote and newline; HELP text backslash and newline
// (the text format's rules).
void append_escaped(std::string& out, std::string_view text, bool quotes) {
  for (const char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '"' && quotes) {
      out += "\\\"";
    } else {
      out += c;
    }
  }
}

std::string_view type_name(MetricType type) {
  switch (type) {
    case MetricType::counter:
      return "counter";
    case MetricType::gauge:
      return "gauge";
    case MetricType::histogram:
      return "histogram";
  }
  return "untyped";
}

void append_series(std::string& out, std::string_view name, std::string_view suffix,
                   const std::string& labels, std::string_view extra_label = {},
                   double extra_value = 0) {
  out += name;
  out += suffix;
  if (!labels.empty() || !extra_label.empty()) {
    out += '{';
    out += labels;
    if (!extra_label.empty()) {
      if (!labels.empty()) out += ',';
      out += extra_label;
      out += "=\"";
      append_value(out, extra_value);
      out += '"';
    }
    out += '}';
  }
  out += ' ';
}

// The sample buffers of this thread's last scrape, kept with their capacity: a scrape of a large
// node then touches no fresh pages (the page faults of new 300 kB buffers cost more than the
// copying itself).
thread_local std::vector<std::string> spare_buffers;
constexpr size_t kMaxSpareBuffers = 256;  // more than roced has families

std::string fresh_buffer() {
  if (spare_buffers.empty()) return {};
  std::string buffer = std::move(spare_buffers.back());
  spare_buffers.pop_back();
  buffer.clear();
  return buffer;
}

}  // namespace

void LabelSet::append(Pairs pairs) {
  for (const auto& [name, value] : pairs) {
    if (!text_.empty()) text_ += ',';
    text_ += name;
    text_ += "=\"";
    append_escaped(text_, value, true);
    text_ += '"';
  }
}

void append_value(std::string& out, double value) {
  if (std::isnan(value)) {
    out += "NaN";
    return;
  }
  if (std::isinf(value)) {
    out += value > 0 ? "+Inf" : "-Inf";
    return;
  }
  char buffer[32];
  // Counters are integers: printed as such while a double holds them exactly.
  constexpr double kExact = 9007199254740992.0;  // 2^53
  std::to_chars_result result;
  if (value == std::trunc(value) && std::fabs(value) < kExact) {
    result = std::to_chars(buffer, buffer + sizeof(buffer), static_cast<int64_t>(value));
  } else {
    result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  }
  out.append(buffer, result.ptr);
}

ExpositionWriter::Family* ExpositionWriter::family(const FamilySpec& spec) {
  const auto [it, inserted] = index_.try_emplace(spec.name, families_.size());
  if (inserted) families_.push_back({&spec, !serves_ || serves_(spec.name), fresh_buffer()});
  Family& found = families_[it->second];
  return found.served ? &found : nullptr;
}

void ExpositionWriter::add(const FamilySpec& spec, const LabelSet& labels, double value) {
  Family* f = family(spec);
  if (f == nullptr) return;
  append_series(f->samples, spec.name, {}, labels.text());
  append_value(f->samples, value);
  f->samples += '\n';
}

void ExpositionWriter::add(const FamilySpec& spec, const LabelSet& labels,
                           const HistogramSample& histogram) {
  Family* f = family(spec);
  if (f == nullptr) return;
  std::string& out = f->samples;
  for (size_t i = 0; i < histogram.bounds.size() && i < histogram.cumulative.size(); ++i) {
    append_series(out, spec.name, "_bucket", labels.text(), "le", histogram.bounds[i]);
    append_value(out, static_cast<double>(histogram.cumulative[i]));
    out += '\n';
  }
  append_series(out, spec.name, "_bucket", labels.text(), "le",
                std::numeric_limits<double>::infinity());
  append_value(out, static_cast<double>(histogram.count));
  out += '\n';
  append_series(out, spec.name, "_count", labels.text());
  append_value(out, static_cast<double>(histogram.count));
  out += '\n';
  append_series(out, spec.name, "_sum", labels.text());
  append_value(out, histogram.sum);
  out += '\n';
}

std::vector<std::string_view> ExpositionWriter::family_names() const {
  std::vector<std::string_view> names;
  for (const auto& f : families_) {
    if (f.served && !f.samples.empty()) names.push_back(f.spec->name);
  }
  return names;
}

void ExpositionWriter::take(std::string& out) {
  out.clear();
  for (const auto& f : families_) {
    if (!f.served || f.samples.empty()) continue;
    out += "# HELP ";
    out += f.spec->name;
    out += ' ';
    append_escaped(out, f.spec->help, false);
    out += "\n# TYPE ";
    out += f.spec->name;
    out += ' ';
    out += type_name(f.spec->type);
    out += '\n';
    out += f.samples;
  }
  recycle();
}

ExpositionWriter::~ExpositionWriter() { recycle(); }

void ExpositionWriter::recycle() {
  for (auto& f : families_) {
    if (spare_buffers.size() < kMaxSpareBuffers) spare_buffers.push_back(std::move(f.samples));
  }
  families_.clear();
  index_.clear();
}

}  // namespace roced::telemetry
