// Plots of a report: the C++ side writes the data as CSV, then runs the embedded
// scripts/plot_report.py with python3 and matplotlib to draw them. Without python3 or
// matplotlib the data is still written and the caller is told, in one line, why no plot was drawn.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "report.hpp"

namespace coalesce::report {

struct PlotOptions {
  std::filesystem::path out_dir;        ///< created if missing
  std::optional<Shape> landscape_shape; ///< default: the problem with the most timed configs
  /// Interpreter to run the script with; empty: `python3` on PATH, else /usr/bin/python3 (where
  /// Debian's python3-matplotlib lands when PATH leads to another Python, e.g. pyenv's).
  std::string python;
  /// `--same-model`: peers from another device of the model join the throughput plots, each as
  /// a series of its own, named and drawn as cross-device (hollow markers, dashed line)
  PeerScope peers = PeerScope::same_device;
};

struct PlotResult {
  std::vector<std::pair<std::string, std::filesystem::path>> images;  ///< caption, file drawn
  std::string skipped;  ///< why nothing was drawn (python3 or matplotlib missing); else empty
};

/// Writes out_dir/tflops_by_shape.csv (with PeerScope::same_model a last column, measured_on:
/// the device of a cross-device point, else empty), out_dir/tflops_vs_m.csv (the m_sweep groups:
/// per M the fastest fused config, every other method of the group and the read_b floor as
/// 2·M·N·K ÷ its time, `kind` fused, method or floor) and out_dir/tile_landscape.csv, then draws
/// tflops_vs_shape.png, ratio_to_eager.png, tflops_vs_m.png (where some group has enough M) and
/// tile_landscape.png. Throws std::runtime_error when the directory cannot be written or the
/// script fails.
PlotResult make_plots(const db::Database& db, const Filters& f, const PlotOptions& options);

}  // namespace coalesce::report
