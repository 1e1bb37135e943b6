// The presets in workloads/: every file parses, is listed here with its model's published
// dimensions, says so in its `# dims:` line and its citation, and its rows follow from them: per
// token count, Q/K/V (one fused d -> 3d, or three d -> d), the attention output d -> d, the MLP up
// d -> 4d with bias_gelu and the MLP down 4d -> d, each counted layers × multiplicity, dtype empty.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tuner/workload.hpp"

namespace coalesce {
namespace {

namespace fs = std::filesystem;

/// A preset's model as its published configuration gives it (the file's comments cite where).
struct Published {
  std::string file;
  int d, ff, layers;
  bool fused_qkv;        ///< GPT-2's c_attn d -> 3d; BERT and ViT: query, key, value d -> d each
  std::string d_key, layers_key, activation;  ///< the config's names, as the citation quotes them
};

const std::vector<Published> kPublished = {
    {"bert-base.csv", 768, 3072, 12, false, "hidden_size", "num_hidden_layers", "\"gelu\""},
    {"bert-large.csv", 1024, 4096, 24, false, "hidden_size", "num_hidden_layers", "\"gelu\""},
    {"gpt2-small.csv", 768, 3072, 12, true, "n_embd", "n_layer", "\"gelu_new\""},
    {"gpt2-medium.csv", 1024, 4096, 24, true, "n_embd", "n_layer", "\"gelu_new\""},
    {"gpt2-large.csv", 1280, 5120, 36, true, "n_embd", "n_layer", "\"gelu_new\""},
    {"gpt2-xl.csv", 1600, 6400, 48, true, "n_embd", "n_layer", "\"gelu_new\""},
    {"vit-b16.csv", 768, 3072, 12, false, "hidden_size", "num_hidden_layers", "\"gelu\""},
    {"vit-l16.csv", 1024, 4096, 24, false, "hidden_size", "num_hidden_layers", "\"gelu\""},
};
const std::vector<int> kTokens = {1, 16, 128, 512, 2048, 8192};

// The gated MLP presets: a model's published sizes and the words its citation must quote.
struct PublishedGated {
  std::string file;
  int d, ff, layers;
  std::vector<std::string> quoted;  ///< beyond the configuration's numbers under their own names
};

const std::vector<PublishedGated> kPublishedGated = {
    {"llama3-8b-mlp.csv", 4096, 14336, 32,
     {"huggingface.co/meta-llama/Meta-Llama-3-8B", "ffn_dim_multiplier 1.3", "multiple_of 1024"}},
    {"llama3-70b-mlp.csv", 8192, 28672, 80, {"huggingface.co/meta-llama/Meta-Llama-3-70B"}},
    {"mistral-7b-mlp.csv", 4096, 14336, 32, {"huggingface.co/mistralai/Mistral-7B-v0.1"}},
    {"qwen2.5-7b-mlp.csv", 3584, 18944, 28, {"huggingface.co/Qwen/Qwen2.5-7B"}},
};

std::string text_of(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The `# dims: d=768 ff=3072 ...` line of a preset as key → value.
std::map<std::string, std::string> dims_of(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("# dims: ", 0) != 0) continue;
    std::istringstream words(line.substr(8));
    for (std::string w; words >> w;)
      if (const auto eq = w.find('='); eq != std::string::npos) out[w.substr(0, eq)] = w.substr(eq + 1);
  }
  return out;
}

std::vector<int> numbers(const std::string& csv) {
  std::vector<int> out;
  std::istringstream s(csv);
  for (std::string x; std::getline(s, x, ',');) out.push_back(std::stoi(x));
  return out;
}

struct Row {
  int m, n, k;
  Epilogue epilogue;
  std::string name_suffix;
  std::int64_t count;
};

/// The rows a transformer block's linear layers make at `tokens` (in the presets' order).
std::vector<Row> expected_rows(int d, int ff, int layers, bool fused_qkv, const std::vector<int>& tokens) {
  std::vector<Row> out;
  for (int t : tokens) {
    if (fused_qkv) {
      out.push_back({t, 3 * d, d, Epilogue::bias, "attn.c_attn", layers});
      out.push_back({t, d, d, Epilogue::bias, "attn.c_proj", layers});
      out.push_back({t, ff, d, Epilogue::bias_gelu, "mlp.c_fc", layers});
      out.push_back({t, d, ff, Epilogue::bias, "mlp.c_proj", layers});
    } else {
      out.push_back({t, d, d, Epilogue::bias, "query/key/value", 3 * layers});
      out.push_back({t, d, d, Epilogue::bias, "attention.output.dense", layers});
      out.push_back({t, ff, d, Epilogue::bias_gelu, "intermediate.dense", layers});
      out.push_back({t, d, ff, Epilogue::bias, "output.dense", layers});
    }
  }
  return out;
}

/// Checks a preset's rows against the block its `# dims:` line describes.
void check_rows(const Workload& w, const std::map<std::string, std::string>& dims) {
  const int d = std::stoi(dims.at("d")), ff = std::stoi(dims.at("ff")), layers = std::stoi(dims.at("layers"));
  const bool fused = dims.at("qkv") == "fused";
  EXPECT_TRUE(fused || dims.at("qkv") == "separate") << w.path;
  EXPECT_EQ(ff, 4 * d) << w.path << ": the MLP is d -> 4d in every preset's model";
  const std::vector<Row> rows = expected_rows(d, ff, layers, fused, numbers(dims.at("tokens")));
  ASSERT_EQ(w.lines.size(), rows.size()) << w.path;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const WorkloadLine& l = w.lines[i];
    const Row& r = rows[i];
    SCOPED_TRACE(w.path + ":" + std::to_string(l.line));
    EXPECT_EQ(l.m, r.m);
    EXPECT_EQ(l.n, r.n);
    EXPECT_EQ(l.k, r.k);
    EXPECT_FALSE(l.dtype) << "presets leave the dtype to --dtype";
    EXPECT_EQ(l.epilogue ? to_string(*l.epilogue) : "(empty)", to_string(r.epilogue));
    EXPECT_EQ(l.count, r.count);
    EXPECT_TRUE(l.name.size() >= r.name_suffix.size() &&
                l.name.compare(l.name.size() - r.name_suffix.size(), r.name_suffix.size(), r.name_suffix) == 0)
        << l.name << " should end in " << r.name_suffix;
  }
}

TEST(WorkloadPresets, EveryPresetIsListedHereAndParses) {
  std::set<std::string> listed;
  for (const Published& p : kPublished) listed.insert(p.file);
  listed.insert("tiny.csv");
  for (const PublishedGated& p : kPublishedGated) listed.insert(p.file);
  std::set<std::string> found;
  for (const auto& entry : fs::directory_iterator(WORKLOADS_DIR)) {
    if (entry.path().extension() != ".csv") continue;
    found.insert(entry.path().filename().string());
    EXPECT_NO_THROW(read_workload(entry.path().string())) << entry.path();
  }
  EXPECT_EQ(found, listed) << "a preset in workloads/ needs its published dimensions in this test";
}

TEST(WorkloadPresets, EachModelFollowsItsPublishedConfiguration) {
  for (const Published& p : kPublished) {
    SCOPED_TRACE(p.file);
    const fs::path path = fs::path(WORKLOADS_DIR) / p.file;
    const std::string text = text_of(path);
    const auto dims = dims_of(text);
    ASSERT_EQ(dims.size(), 5u) << "a '# dims: d= ff= layers= qkv= tokens=' line";
    EXPECT_EQ(std::stoi(dims.at("d")), p.d);
    EXPECT_EQ(std::stoi(dims.at("ff")), p.ff);
    EXPECT_EQ(std::stoi(dims.at("layers")), p.layers);
    EXPECT_EQ(dims.at("qkv"), p.fused_qkv ? "fused" : "separate");
    EXPECT_EQ(numbers(dims.at("tokens")), kTokens);
    check_rows(read_workload(path.string()), dims);
    // The citation quotes the same numbers under the configuration's own names, with its URL
    // and the activation, and says how Coalesce's exact-erf bias_gelu relates to it.
    EXPECT_NE(text.find("huggingface.co/"), std::string::npos);
    EXPECT_NE(text.find(p.d_key + " " + std::to_string(p.d)), std::string::npos) << p.d_key;
    EXPECT_NE(text.find(p.layers_key + " " + std::to_string(p.layers)), std::string::npos) << p.layers_key;
    EXPECT_NE(text.find(std::to_string(p.ff)), std::string::npos);
    EXPECT_NE(text.find(p.activation), std::string::npos) << p.activation;
    EXPECT_NE(text.find("exact erf"), std::string::npos);
    if (p.fused_qkv) EXPECT_NE(text.find("tanh"), std::string::npos) << "gelu_new is the tanh approximation";
  }
}

// Each gated MLP preset: per token count the merged gate/up GEMM (N = 2·ff, swiglu, C of ff
// columns) and the down projection ff -> d (no bias), each counted once per layer; its citation
// quotes the configuration's numbers (and, for Llama-3-8B, Meta's derivation of 14336).
TEST(WorkloadPresets, EachGatedMlpPresetFollowsItsPublishedConfiguration) {
  for (const PublishedGated& p : kPublishedGated) {
    SCOPED_TRACE(p.file);
    const fs::path path = fs::path(WORKLOADS_DIR) / p.file;
    const std::string text = text_of(path);
    const auto dims = dims_of(text);
    ASSERT_EQ(dims.size(), 5u) << "a '# dims: d= ff= layers= mlp= tokens=' line";
    const int d = std::stoi(dims.at("d")), ff = std::stoi(dims.at("ff")), layers = std::stoi(dims.at("layers"));
    EXPECT_EQ(d, p.d);
    EXPECT_EQ(ff, p.ff);
    EXPECT_EQ(layers, p.layers);
    EXPECT_EQ(dims.at("mlp"), "gated");
    std::vector<std::string> quoted = p.quoted;
    quoted.push_back("hidden_size " + std::to_string(p.d));
    quoted.push_back("intermediate_size " + std::to_string(p.ff));
    quoted.push_back("num_hidden_layers " + std::to_string(p.layers));
    quoted.push_back("\"silu\"");
    for (const std::string& q : quoted) EXPECT_NE(text.find(q), std::string::npos) << q;
    const Workload w = read_workload(path.string());
    const std::vector<int> tokens = numbers(dims.at("tokens"));
    EXPECT_EQ(tokens, (std::vector<int>{1, 16, 128, 1024, 4096, 8192}));
    ASSERT_EQ(w.lines.size(), 2 * tokens.size());
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      const WorkloadLine& up = w.lines[2 * i];
      const WorkloadLine& down = w.lines[2 * i + 1];
      EXPECT_EQ(up.m, tokens[i]);
      EXPECT_EQ(up.n, 2 * ff);
      EXPECT_EQ(up.k, d);
      ASSERT_TRUE(up.epilogue);
      EXPECT_EQ(*up.epilogue, Epilogue::swiglu);
      EXPECT_EQ(up.name, "mlp.gate_up_proj");
      EXPECT_EQ(down.m, tokens[i]);
      EXPECT_EQ(down.n, d);
      EXPECT_EQ(down.k, ff);
      ASSERT_TRUE(down.epilogue);
      EXPECT_EQ(*down.epilogue, Epilogue::none);
      EXPECT_EQ(down.name, "mlp.down_proj");
      for (const WorkloadLine* l : {&up, &down}) {
        EXPECT_FALSE(l->dtype) << "presets leave the dtype to --dtype";
        EXPECT_EQ(l->count, layers);
      }
      // The gated GEMM's C is the down projection's A: tokens x ff.
      EXPECT_EQ((Problem{up.m, up.n, up.k, Dtype::bf16, *up.epilogue}.c_cols()), down.k);
    }
  }
}

TEST(WorkloadPresets, TheTinyPresetIsSmallAndConsistent) {
  const fs::path path = fs::path(WORKLOADS_DIR) / "tiny.csv";
  const auto dims = dims_of(text_of(path));
  const Workload w = read_workload(path.string());
  check_rows(w, dims);
  for (const Problem& p : w.problems(Dtype::f32, Epilogue::bias_gelu))
    EXPECT_LE(static_cast<double>(p.m) * p.n * p.k, 128.0 * 1024 * 1024) << "quick to sweep";
}

}  // namespace
}  // namespace coalesce
