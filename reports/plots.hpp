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
};

struct PlotResult {
  std::vector<std::pair<std::string, std::filesystem::path>> images;  ///< caption, file drawn
  std::string skipped;  ///< why nothing was drawn (python3 or matplotlib missing); else empty
};

/// Every file of a fixed name that make_plots may write or remove in `out_dir` (its data, its
/// manifest and the stacked panels of earlier versions it deletes); its figures are named from
/// the data, so every `*.png` in `out_dir` may be written or removed too. What must not be an input.
std::vector<std::filesystem::path> plot_files(const std::filesystem::path& out_dir);

/// A figure is at most this many problems (rows) or panels, so that none is taller than about
/// 2,000 pixels; a family with more is drawn as parts (`..._2.png`, ...).
inline constexpr std::size_t kShapesPerFigure = 40;
inline constexpr std::size_t kPanelsPerFigure = 8;

/// Writes out_dir/by_model_shapes.csv (per GPU model, dtype and problem, the report's answer
/// entry: the fused row and each alternative, with TFLOP/s and the speed-up over it),
/// out_dir/by_model_m_sweep.csv (per model, dtype, epilogue, N, K and protocol measured at
/// kMinSweepPoints or more M: the fused row, each alternative and the read_b floor of its run,
/// as TFLOP/s against M) and out_dir/tile_landscape.csv; each figure's rows name its file
/// (`figure`, e.g. nvidia-h200_bf16_shapes.png) and title. Then draws them with the embedded
/// scripts/plot_report.py and removes every PNG of an earlier drawing that is no figure now.
/// Throws std::runtime_error when the directory cannot be written or the script fails.
PlotResult make_plots(const db::Database& db, const Filters& f, const PlotOptions& options);

}  // namespace coalesce::report
