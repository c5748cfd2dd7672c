#include <cassert>

#include "mancala/cluster.h"

namespace mancala::cluster {

__extension__ using Wide = unsigned __int128;

std::uint64_t owner_of(std::uint64_t n, std::uint64_t parts, std::uint64_t i) {
  assert(i < n && parts > 0);
  // chunk_start(n, K, r) = floor(n r / K), so r = floor(i K / n) is at most one off.
  auto r = static_cast<std::uint64_t>(static_cast<Wide>(i) * parts / n);
  if (r >= parts) r = parts - 1;
  while (r + 1 < parts && chunk_start(n, parts, r + 1) <= i) ++r;
  while (r > 0 && chunk_start(n, parts, r) > i) --r;
  return r;
}

ClusterStats& ClusterStats::operator+=(const ClusterStats& o) {
  positions += o.positions;
  records += o.records;
  bytes += o.bytes;
  exchanges += o.exchanges;
  gathered_bytes += o.gathered_bytes;
  seconds_solving += o.seconds_solving;
  seconds_exchanging += o.seconds_exchanging;
  seconds_gathering += o.seconds_gathering;
  seconds_writing += o.seconds_writing;
  return *this;
}

}  // namespace mancala::cluster
