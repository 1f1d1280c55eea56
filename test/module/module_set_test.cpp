// SPDX-License-Identifier: Apache-2.0
// ModuleSet: modules start by stage and then in the order added, stop in reverse, and a reload
// reaches exactly the modules that take a changed section; changed_sections names them.
#include "daemon/module/module_set.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace roced::module {
namespace {

class Recorded final : public Module {
 public:
  Recorded(std::string name, Stage stage, std::vector<Section> sections,
           std::vector<std::string>& log)
      : name_(std::move(name)), stage_(stage), sections_(std::move(sections)), log_(log) {}
  std::string_view name() const override { return name_; }
  Stage stage() const override { return stage_; }
  std::vector<Section> sections() const override { return sections_; }
  void start() override { log_.push_back("start " + name_); }
  void stop() override { log_.push_back("stop " + name_); }
  void reconfigure(const config::Config&, const config::Config& after) override {
    log_.push_back("reconfigure " + name_ + " mtu " + std::to_string(after.profile.mtu));
  }
  bool healthy(std::chrono::steady_clock::time_point) const override { return healthy_; }
  std::vector<finding::Finding> findings() const override {
    finding::Finding found;
    found.id = "found_by_" + name_;
    return {found};
  }
  bool healthy_ = true;

 private:
  std::string name_;
  Stage stage_;
  std::vector<Section> sections_;
  std::vector<std::string>& log_;
};

struct Fixture {
  std::vector<std::string> log;
  ModuleSet set;
  Recorded* late = nullptr;
  Fixture() {
    auto add = [this](const char* name, Stage stage, std::vector<Section> sections) {
      auto module = std::make_unique<Recorded>(name, stage, std::move(sections), log);
      Recorded* raw = module.get();
      set.add(std::move(module));
      return raw;
    };
    late = add("metrics", Stage::AfterPorts, {Section::Metrics});
    add("reconciler", Stage::Ports, {Section::Profile, Section::Ports});
    add("peers", Stage::BeforePorts, {});
    for (const auto stage : {Stage::BeforePorts, Stage::Ports, Stage::AfterPorts}) set.start(stage);
  }
};

Reload reload_of(config::Config before, config::Config after) {
  Reload reload;
  reload.ok = true;
  reload.changed = changed_sections(before, after);
  reload.before = std::make_shared<const config::Config>(std::move(before));
  reload.after = std::make_shared<const config::Config>(std::move(after));
  return reload;
}

TEST(ModuleSet, StartsByStageAndStopsInReverse) {
  Fixture f;
  EXPECT_EQ(f.log, (std::vector<std::string>{"start peers", "start reconciler", "start metrics"}));
  f.log.clear();
  f.set.stop();
  f.set.stop();  // idempotent
  EXPECT_EQ(f.log, (std::vector<std::string>{"stop metrics", "stop reconciler", "stop peers"}));
}

TEST(ModuleSet, AStopDuringStartUpLeavesTheRestUnstarted) {
  std::vector<std::string> log;
  ModuleSet set;
  set.add(std::make_unique<Recorded>("a", Stage::AfterPorts, std::vector<Section>{}, log));
  set.add(std::make_unique<Recorded>("b", Stage::AfterPorts, std::vector<Section>{}, log));
  int asked = 0;
  set.start(Stage::AfterPorts, [&asked] { return ++asked > 1; });
  set.stop();
  EXPECT_EQ(log, (std::vector<std::string>{"start a", "stop a"}));
}

TEST(ModuleSet, AReloadReachesOnlyTheModulesOfTheChangedSections) {
  Fixture f;
  f.log.clear();
  config::Config before;
  config::Config after = before;
  after.profile.mtu = 4200;
  const auto told = f.set.reconfigure(reload_of(before, after));
  EXPECT_EQ(told, (std::vector<std::string>{"reconciler"}));
  EXPECT_EQ(f.log, (std::vector<std::string>{"reconfigure reconciler mtu 4200"}));

  f.log.clear();
  after = before;
  after.metrics.listen = "127.0.0.1:9999";
  EXPECT_EQ(f.set.reconfigure(reload_of(before, after)), (std::vector<std::string>{"metrics"}));

  f.log.clear();
  EXPECT_TRUE(f.set.reconfigure(reload_of(before, before)).empty());  // nothing changed
  Reload failed = reload_of(before, after);
  failed.ok = false;
  EXPECT_TRUE(f.set.reconfigure(failed).empty());
  EXPECT_TRUE(f.log.empty());
}

TEST(ModuleSet, HealthAndFindingsAreEveryStartedModules) {
  Fixture f;
  const auto now = std::chrono::steady_clock::now();
  EXPECT_TRUE(f.set.healthy(now));
  f.late->healthy_ = false;
  EXPECT_FALSE(f.set.healthy(now));
  std::vector<std::string> ids;
  for (const auto& found : f.set.findings()) ids.push_back(found.id);
  EXPECT_EQ(
      ids, (std::vector<std::string>{"found_by_peers", "found_by_reconciler", "found_by_metrics"}));
  EXPECT_NE(f.set.find<Recorded>(), nullptr);
  EXPECT_EQ(f.set.collectors().size(), 3u);
}

TEST(ChangedSections, NameEachSectionThatDiffers) {
  config::Config a;
  config::Config b = a;
  EXPECT_TRUE(changed_sections(a, b).empty());
  b.daemon.log_level = "debug";
  b.watchdog.enabled = !a.watchdog.enabled;
  b.health.link_flaps_per_10m = 5;
  b.ports.netdevs = {"lan3"};
  b.overrides.push_back({"lan4", a.profile});
  EXPECT_EQ(changed_sections(a, b),
            (std::vector<Section>{Section::Daemon, Section::Watchdog, Section::Health,
                                  Section::Ports, Section::Overrides}));
}

}  // namespace
}  // namespace roced::module
