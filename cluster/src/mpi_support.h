// What the cluster's sources share (private to mancala::cluster): the namespace
// aliases, the seconds since a time point, and the verdict of every rank.
#pragma once

#include <mpi.h>

#include <boost/mpi/communicator.hpp>
#include <chrono>
#include <filesystem>
#include <stdexcept>

#include "mancala/cluster.h"

namespace mancala::cluster {

namespace fs = std::filesystem;
namespace mpi = boost::mpi;

namespace support {

using clock_type = std::chrono::steady_clock;
inline double since(clock_type::time_point t) { return std::chrono::duration<double>(clock_type::now() - t).count(); }

// 1 when every rank passes ok = 1 (an MPI_Allreduce of the minimum), inside the
// watchdog's phase when one is named.
inline int all_agree(const mpi::communicator& comm, int ok, const WaitHook& wait = {}, const char* phase = nullptr) {
  int all = 0;
  if (wait && phase) wait(phase);
  if (MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_Comm(comm)) != MPI_SUCCESS)
    throw std::runtime_error("MPI_Allreduce failed");
  if (wait && phase) wait(nullptr);
  return all;
}

}  // namespace support

}  // namespace mancala::cluster
