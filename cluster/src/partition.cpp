#include "mancala/cluster.h"

namespace mancala::cluster {

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
  seconds_compressing += o.seconds_compressing;
  return *this;
}

}  // namespace mancala::cluster
