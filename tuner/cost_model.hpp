// The model-guided strategy's cost model: gradient-boosted regression trees over a config's
// features (its parameters, the problem, the family's resource prediction, the launch's waves and
// the device), fitted on other sweeps' relative log times (TrainingRow), plus a correction from
// the sweep's own measurements (the nearest measured configs' residuals). Written here rather than
// linked from XGBoost: the data are a few thousand rows of some twenty features, the trees are a
// hundred lines, and the tools keep one static binary with no new dependency (docs/tuner.md).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "strategy.hpp"

namespace coalesce::tuner {

/// The features of `config` on `problem` (the family's parameters in its order, then the
/// problem's, the prediction's and the launch's figures); one length per family.
std::vector<double> config_features(const Family& family, const Config& config, const Problem& problem,
                                    const Target& target);

/// Boosted regression trees with squared loss on binned features (each feature cut at up to
/// kMaxBins quantiles, as LightGBM and XGBoost's `hist` method do).
class BoostedTrees {
 public:
  struct Options {
    int trees = 150;
    int depth = 5;
    double learning_rate = 0.1;
    int min_leaf = 8;
  };
  BoostedTrees() = default;
  void fit(const std::vector<std::vector<double>>& x, const std::vector<double>& y, const Options& options);
  void fit(const std::vector<std::vector<double>>& x, const std::vector<double>& y) { fit(x, y, Options{}); }
  double predict(const std::vector<double>& x) const;
  bool empty() const { return trees_.empty(); }

 private:
  struct Node {
    int feature = -1;  ///< -1: a leaf
    double threshold = 0;  ///< go left when x[feature] <= threshold
    int left = -1, right = -1;
    double value = 0;
  };
  std::vector<std::vector<Node>> trees_;
  double base_ = 0;
};

/// The trees fitted on the history's rows of `family` (features on `target` with each row's own
/// SM count); empty trees when it holds none.
std::shared_ptr<const BoostedTrees> fit_history(const Family& family, const std::vector<TrainingRow>& history,
                                                const Target& target);

/// The model of one family's sweep of one problem: the trees' prediction for every candidate,
/// corrected by the residuals of the candidates measured so far.
class SweepModel {
 public:
  SweepModel(const StrategyContext& context);
  /// Adds a measured candidate (its median in ms).
  void observe(std::size_t candidate, double median_ms);
  /// The predicted log time of a candidate, on the scale of the observed ones once any is.
  double predicted_log_ms(std::size_t candidate) const;
  /// Whether any training row of the family was available.
  bool fitted() const { return !trees_->empty(); }

 private:
  /// The width of the neighbourhood whose residuals correct a prediction: a mean squared
  /// standardized distance of this much weighs e^-1.
  static constexpr double kBandwidth = 0.1;
  std::shared_ptr<const BoostedTrees> trees_;
  std::vector<std::vector<double>> features_;  // standardized, per candidate
  std::vector<double> prior_;                   // the trees' prediction per candidate
  std::vector<std::pair<std::size_t, double>> residuals_;  // measured: candidate, log ms - prior
  double offset_ = 0;                                      // the mean residual
};

}  // namespace coalesce::tuner
