// The cost model (cost_model.hpp).
#include "cost_model.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace coalesce::tuner {

std::vector<double> config_features(const Family& family, const Config& config, const Problem& problem,
                                    const Target& target) {
  std::vector<double> f(config.values.begin(), config.values.end());
  f.push_back(std::log2(static_cast<double>(problem.m)));
  f.push_back(std::log2(static_cast<double>(problem.n)));
  f.push_back(std::log2(static_cast<double>(problem.k)));
  f.push_back(static_cast<double>(static_cast<int>(problem.dtype)));
  f.push_back(static_cast<double>(static_cast<int>(problem.epilogue)));
  const Resources r = family.predict(config, target.limits, problem);
  f.push_back(r.threads);
  f.push_back(r.registers);
  f.push_back(r.smem_bytes);
  f.push_back(r.blocks_per_sm);
  // The launch against the device: how many waves of resident blocks the grid makes and how full
  // its last wave is, the quantisation a tile choice is mostly about at a given shape.
  double blocks = 1;
  try {
    blocks = static_cast<double>(family.geometry(config, problem, target).blocks());
  } catch (const std::exception&) {
  }
  const double slots = static_cast<double>(target.sm_count) * std::max(1, r.blocks_per_sm);
  const double waves = blocks / slots;
  f.push_back(std::log2(std::max(1.0, blocks)));
  f.push_back(waves);
  f.push_back(waves / std::ceil(std::max(waves, 1e-9)));
  f.push_back(target.sm_count);
  return f;
}

namespace {

// Up to this many bins per feature: the parameters take a handful of values, the problem's and
// the prediction's figures a few dozen; 64 keeps every distinct value of those apart.
constexpr std::size_t kMaxBins = 64;

std::vector<double> cuts_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  std::vector<double> cuts;
  if (values.size() <= kMaxBins) {
    for (std::size_t i = 0; i + 1 < values.size(); ++i) cuts.push_back(0.5 * (values[i] + values[i + 1]));
    return cuts;
  }
  for (std::size_t b = 1; b < kMaxBins; ++b) {
    const std::size_t i = b * values.size() / kMaxBins;
    const double c = 0.5 * (values[i - 1] + values[i]);
    if (cuts.empty() || c > cuts.back()) cuts.push_back(c);
  }
  return cuts;
}

}  // namespace

void BoostedTrees::fit(const std::vector<std::vector<double>>& x, const std::vector<double>& y,
                       const Options& options) {
  trees_.clear();
  base_ = 0;
  const std::size_t rows = x.size();
  if (rows == 0) return;
  const std::size_t dims = x[0].size();
  base_ = std::accumulate(y.begin(), y.end(), 0.0) / static_cast<double>(rows);
  std::vector<std::vector<double>> cuts(dims);
  std::vector<std::vector<std::uint8_t>> bin(dims, std::vector<std::uint8_t>(rows));
  for (std::size_t d = 0; d < dims; ++d) {
    std::vector<double> column(rows);
    for (std::size_t r = 0; r < rows; ++r) column[r] = x[r][d];
    cuts[d] = cuts_of(column);
    for (std::size_t r = 0; r < rows; ++r)
      bin[d][r] = static_cast<std::uint8_t>(std::lower_bound(cuts[d].begin(), cuts[d].end(), column[r]) - cuts[d].begin());
  }
  std::vector<double> residual(rows);
  for (std::size_t r = 0; r < rows; ++r) residual[r] = y[r] - base_;

  for (int t = 0; t < options.trees; ++t) {
    std::vector<Node> tree(1);
    struct Open {
      int node;
      std::vector<std::size_t> rows;
      int depth;
    };
    std::vector<Open> open;
    std::vector<std::size_t> all(rows);
    std::iota(all.begin(), all.end(), 0);
    open.push_back({0, std::move(all), 0});
    while (!open.empty()) {
      Open o = std::move(open.back());
      open.pop_back();
      double sum = 0;
      for (std::size_t r : o.rows) sum += residual[r];
      const double n = static_cast<double>(o.rows.size());
      tree[o.node].value = options.learning_rate * sum / n;
      if (o.depth == options.depth || o.rows.size() < 2 * static_cast<std::size_t>(options.min_leaf)) continue;
      double best_gain = 1e-12;
      int best_feature = -1;
      std::size_t best_bin = 0;
      std::vector<double> hsum(kMaxBins);
      std::vector<std::size_t> hcount(kMaxBins);
      for (std::size_t d = 0; d < dims; ++d) {
        if (cuts[d].empty()) continue;
        std::fill(hsum.begin(), hsum.end(), 0.0);
        std::fill(hcount.begin(), hcount.end(), 0);
        for (std::size_t r : o.rows) {
          hsum[bin[d][r]] += residual[r];
          ++hcount[bin[d][r]];
        }
        double left = 0;
        std::size_t nleft = 0;
        for (std::size_t b = 0; b < cuts[d].size(); ++b) {
          left += hsum[b];
          nleft += hcount[b];
          const std::size_t nright = o.rows.size() - nleft;
          if (nleft < static_cast<std::size_t>(options.min_leaf) || nright < static_cast<std::size_t>(options.min_leaf))
            continue;
          const double right = sum - left;
          const double gain = left * left / static_cast<double>(nleft) + right * right / static_cast<double>(nright) -
                              sum * sum / n;
          if (gain > best_gain) best_gain = gain, best_feature = static_cast<int>(d), best_bin = b;
        }
      }
      if (best_feature < 0) continue;
      Open l{static_cast<int>(tree.size()), {}, o.depth + 1}, r{static_cast<int>(tree.size() + 1), {}, o.depth + 1};
      for (std::size_t row : o.rows) (bin[best_feature][row] <= best_bin ? l.rows : r.rows).push_back(row);
      tree[o.node].feature = best_feature;
      tree[o.node].threshold = cuts[best_feature][best_bin];
      tree[o.node].left = l.node;
      tree[o.node].right = r.node;
      tree.resize(tree.size() + 2);
      open.push_back(std::move(l));
      open.push_back(std::move(r));
    }
    for (std::size_t r = 0; r < rows; ++r) {
      int node = 0;
      while (tree[node].feature >= 0)
        node = x[r][tree[node].feature] <= tree[node].threshold ? tree[node].left : tree[node].right;
      residual[r] -= tree[node].value;
    }
    trees_.push_back(std::move(tree));
  }
}

double BoostedTrees::predict(const std::vector<double>& x) const {
  double y = base_;
  for (const std::vector<Node>& tree : trees_) {
    int node = 0;
    while (tree[node].feature >= 0) node = x[tree[node].feature] <= tree[node].threshold ? tree[node].left : tree[node].right;
    y += tree[node].value;
  }
  return y;
}

std::shared_ptr<const BoostedTrees> fit_history(const Family& family, const std::vector<TrainingRow>& history,
                                                const Target& target) {
  std::vector<std::vector<double>> x;
  std::vector<double> y;
  for (const TrainingRow& row : history) {
    if (row.config.family != family.name()) continue;
    Target t = target;
    t.sm_count = row.sm_count;
    x.push_back(config_features(family, row.config, row.problem, t));
    y.push_back(row.rel_log_ms);
  }
  auto trees = std::make_shared<BoostedTrees>();
  trees->fit(x, y);
  return trees;
}

SweepModel::SweepModel(const StrategyContext& c)
    : trees_(c.trained ? c.trained : fit_history(*c.family, c.history, c.target)) {
  const std::size_t n = c.candidates.size();
  features_.resize(n);
  prior_.assign(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    features_[i] = config_features(*c.family, c.candidates[i].config, c.problem, c.target);
    if (!trees_->empty()) prior_[i] = trees_->predict(features_[i]);
  }
  // Standardized over the candidates, so that every feature weighs alike in the distance.
  if (n == 0) return;
  for (std::size_t d = 0; d < features_[0].size(); ++d) {
    double mean = 0, sq = 0;
    for (const auto& f : features_) mean += f[d];
    mean /= static_cast<double>(n);
    for (const auto& f : features_) sq += (f[d] - mean) * (f[d] - mean);
    const double sd = std::sqrt(sq / static_cast<double>(n));
    for (auto& f : features_) f[d] = sd > 0 ? (f[d] - mean) / sd : 0.0;
  }
}

void SweepModel::observe(std::size_t candidate, double median_ms) {
  residuals_.push_back({candidate, std::log(median_ms) - prior_[candidate]});
  double sum = 0;
  for (const auto& [i, r] : residuals_) sum += r;
  offset_ = sum / static_cast<double>(residuals_.size());
}

double SweepModel::predicted_log_ms(std::size_t candidate) const {
  // A kernel-weighted mean of the measured neighbours' residuals, shrunk toward the sweep's mean
  // residual by one pseudo-observation: a config among measured ones that ran slower than the
  // trees thought is expected to as well, and one far from all of them keeps the trees' view.
  double wsum = 0, wr = 0;
  const std::vector<double>& f = features_[candidate];
  for (const auto& [i, r] : residuals_) {
    double d2 = 0;
    for (std::size_t d = 0; d < f.size(); ++d) d2 += (f[d] - features_[i][d]) * (f[d] - features_[i][d]);
    const double w = std::exp(-d2 / static_cast<double>(f.size()) / kBandwidth);
    wsum += w;
    wr += w * (r - offset_);
  }
  return prior_[candidate] + offset_ + (wsum > 0 ? wr / (wsum + 1.0) : 0.0);
}

}  // namespace coalesce::tuner
