#include "exporter/config_source.h"

#include <filesystem>
#include <system_error>

#include "common/log.h"
#include "config/loader.h"

namespace rxe::exporter {

Result<config::Config> LoadDaemonConfig(const Flags& flags) {
  if (!flags.config_file_given) {
    std::error_code ec;
    if (!std::filesystem::exists(flags.config_file, ec) && !ec) {
      log::Info("config file not found, using built-in defaults", {{"file", flags.config_file}});
      return config::Config{};
    }
  }
  return config::LoadFile(flags.config_file);
}

Result<WebState> LoadWebState(const std::string& path) {
  WebState state;
  if (path.empty()) return state;
  auto cfg = ReadWebConfigFile(path);
  if (!cfg.ok()) return cfg.error();
  state.config = std::move(cfg.value());
  if (state.config.tls) {
    auto tls = TlsMaterial::Load(*state.config.tls);
    if (!tls.ok()) return tls.error().Wrap(path);
    state.tls = std::move(tls.value());
  }
  return state;
}

}  // namespace rxe::exporter
