// Change detection for file-based peer discovery (cfg.peer_files): the
// daemon polls the stamps of the matched files and reloads when they differ.
#pragma once

#include <ctime>
#include <map>
#include <string>

#include "config/model.h"

namespace rxe::exporter {

struct FileStamp {
  timespec mtime{};
  long long size = 0;
  unsigned long long inode = 0;
  bool operator==(const FileStamp& o) const {
    return mtime.tv_sec == o.mtime.tv_sec && mtime.tv_nsec == o.mtime.tv_nsec && size == o.size &&
           inode == o.inode;
  }
};

/// Path -> stamp of every file matched by cfg.peer_files right now.
using PeerFileStamps = std::map<std::string, FileStamp>;
PeerFileStamps StampPeerFiles(const config::Config& cfg);

}  // namespace rxe::exporter
