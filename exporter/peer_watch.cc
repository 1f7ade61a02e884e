#include "exporter/peer_watch.h"

#include <sys/stat.h>

#include "config/peer_file.h"

namespace rxe::exporter {

PeerFileStamps StampPeerFiles(const config::Config& cfg) {
  PeerFileStamps out;
  if (cfg.peer_files.empty()) return out;
  for (const auto& path : config::ResolvePeerFiles(cfg)) {
    struct stat st {};
    FileStamp stamp;
    if (::stat(path.c_str(), &st) == 0) {
      stamp.mtime = st.st_mtim;
      stamp.size = static_cast<long long>(st.st_size);
      stamp.inode = static_cast<unsigned long long>(st.st_ino);
    }
    out[path] = stamp;  // unreadable files still count: their appearance is a change
  }
  return out;
}

}  // namespace rxe::exporter
