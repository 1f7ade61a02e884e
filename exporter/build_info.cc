#include "exporter/build_info.h"

#include "exporter/version.h"

namespace rxe::exporter {

const char* Version() { return RXE_EXPORTER_VERSION; }
const char* Revision() { return RXE_EXPORTER_REVISION; }

const char* Compiler() {
#if defined(__clang__)
  return "clang " __clang_version__;
#elif defined(__GNUC__)
  return "gcc " __VERSION__;
#else
  return "unknown";
#endif
}

const char* Platform() {
#if defined(__x86_64__)
  return "linux/amd64";
#elif defined(__aarch64__)
  return "linux/arm64";
#elif defined(__i386__)
  return "linux/386";
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  return "linux/ppc64le";
#elif defined(__s390x__)
  return "linux/s390x";
#elif defined(__riscv) && __riscv_xlen == 64
  return "linux/riscv64";
#else
  return "linux/unknown";
#endif
}

std::string VersionText() {
  std::string out = "rxe_exporter, version ";
  out += Version();
  out += " (revision: ";
  out += Revision();
  out += ")\n  compiler:         ";
  out += Compiler();
  out += "\n  platform:         ";
  out += Platform();
  out += '\n';
  return out;
}

}  // namespace rxe::exporter
