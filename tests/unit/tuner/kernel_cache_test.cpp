// The kernel cache's files without NVRTC in the loop: a stored entry reads back whole, and any
// damage (a cut-off or altered cubin, cut-off metadata, another format) is a miss that
// `verify` drops with its reason; `stats` counts, `clear` removes only the cache's own files,
// and a bad directory is one sentence.
#include "tuner/kernel_cache.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tuner/jit.hpp"

namespace coalesce::tuner {
namespace {

namespace fs = std::filesystem;

constexpr const char* kKernel =
    "extern \"C\" __global__ void small(float* x, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) x[i] = erff(x[i]);\n"
    "}\n";

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class KernelCacheFiles : public ::testing::Test {
 protected:
  // A real cubin, compiled once for the suite through a scratch Jit.
  static void SetUpTestSuite() {
    const fs::path scratch = fs::temp_directory_path() / ("coalesce-cache-test-src-" + std::to_string(getpid()));
    CompileResult r = Jit(scratch, "sm_90").compile("small", kKernel);
    ASSERT_TRUE(r.ok) << r.log;
    cubin_ = new std::string(slurp(r.cubin_path));
    fs::remove_all(scratch);
  }
  static void TearDownTestSuite() { delete cubin_; }
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("coalesce-cache-test-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static CacheEntry entry(bool ok, int attempts = 1) {
    return {.symbol = "small", .ok = ok, .log = ok ? "" : "error: no such thing\n", .compile_seconds = 0.5,
            .attempts = attempts, .arch = "sm_90", .nvrtc = "13.0"};
  }
  fs::path file(const std::string& key, const char* ext) const { return dir_ / key.substr(0, 2) / (key + ext); }

  static std::string* cubin_;
  fs::path dir_;
  const std::string key_a = std::string(64, 'a');
  const std::string key_b = std::string(64, 'b');
  const std::string key_c = std::string(64, 'c');
};
std::string* KernelCacheFiles::cubin_ = nullptr;

TEST_F(KernelCacheFiles, AStoredEntryReadsBackWithItsFigures) {
  KernelCache cache(dir_);
  const fs::path cubin = cache.store(key_a, entry(true, 2), *cubin_);
  EXPECT_EQ(cubin, file(key_a, ".cubin"));
  std::optional<CachedKernel> k = cache.load(key_a, "small");
  ASSERT_TRUE(k);
  EXPECT_TRUE(k->entry.ok);
  EXPECT_EQ(k->entry.attempts, 2);
  EXPECT_EQ(k->entry.compile_seconds, 0.5);
  EXPECT_EQ(k->cubin_path, cubin);
  ASSERT_TRUE(k->resources);
  EXPECT_GT(k->resources->registers, 0);
  EXPECT_FALSE(cache.load(key_a, "another_kernel"));
  EXPECT_FALSE(cache.load(key_b, "small"));
}

TEST_F(KernelCacheFiles, AFailedCompileReadsBackWithItsLog) {
  KernelCache cache(dir_);
  cache.store(key_a, entry(false, 2), "");
  std::optional<CachedKernel> k = cache.load(key_a, "small");
  ASSERT_TRUE(k);
  EXPECT_FALSE(k->entry.ok);
  EXPECT_NE(k->entry.log.find("no such thing"), std::string::npos);
  EXPECT_FALSE(fs::exists(file(key_a, ".cubin")));
}

TEST_F(KernelCacheFiles, DamagedEntriesAreMissesThatVerifyDrops) {
  KernelCache cache(dir_);
  const std::string d = std::string(64, 'd'), e = std::string(64, 'e');
  for (const std::string& key : {key_a, key_b, key_c, d, e}) cache.store(key, entry(true), *cubin_);
  cache.store(std::string(64, 'f'), entry(false), "");
  // a: the cubin cut in half; b: one byte changed; c: metadata cut short; d: no cubin;
  // e: metadata of an older cache format.
  fs::resize_file(file(key_a, ".cubin"), cubin_->size() / 2);
  std::string flipped = *cubin_;
  flipped[flipped.size() / 3] ^= 0x20;
  write(file(key_b, ".cubin"), flipped);
  fs::resize_file(file(key_c, ".json"), fs::file_size(file(key_c, ".json")) / 2);
  fs::remove(file(d, ".cubin"));
  std::string meta = slurp(file(e, ".json"));
  meta.replace(meta.find("\"format\":2"), 10, "\"format\":1");
  write(file(e, ".json"), meta);

  for (const std::string& key : {key_a, key_b, key_c, d, e}) EXPECT_FALSE(cache.load(key, "small")) << key;

  const KernelCache::Verified v = cache.verify();
  EXPECT_EQ(v.checked, 6u);
  EXPECT_EQ(v.kept, 1u);  // the failed compile, whole
  ASSERT_EQ(v.dropped.size(), 5u);
  auto why = [&](const std::string& key) {
    for (const std::string& s : v.dropped)
      if (s.starts_with(key)) return s;
    return std::string("(not dropped)");
  };
  EXPECT_NE(why(key_a).find("not the " + std::to_string(cubin_->size()) + " recorded"), std::string::npos) << why(key_a);
  EXPECT_NE(why(key_b).find("SHA-256"), std::string::npos) << why(key_b);
  EXPECT_NE(why(key_c).find("not a JSON object"), std::string::npos) << why(key_c);
  EXPECT_NE(why(d).find("missing"), std::string::npos) << why(d);
  EXPECT_NE(why(e).find("another cache format"), std::string::npos) << why(e);
  for (const std::string& key : {key_a, key_b, key_c, d, e}) {
    EXPECT_FALSE(fs::exists(file(key, ".json"))) << key;
    EXPECT_FALSE(fs::exists(file(key, ".cubin"))) << key;
  }
  EXPECT_EQ(cache.verify().dropped.size(), 0u);  // a second pass finds nothing left to drop
}

TEST_F(KernelCacheFiles, StatsCountEntriesByOutcome) {
  KernelCache cache(dir_);
  cache.store(key_a, entry(true), *cubin_);
  cache.store(key_b, entry(true, 2), *cubin_);
  cache.store(key_c, entry(false, 2), "");
  write(file(std::string(64, 'd'), ".json"), "{cut");
  const KernelCache::Stats s = cache.stats();
  EXPECT_EQ(s.entries, 4u);
  EXPECT_EQ(s.ok, 2u);
  EXPECT_EQ(s.failed, 1u);
  EXPECT_EQ(s.retried, 2u);
  EXPECT_EQ(s.unreadable, 1u);
  EXPECT_GE(s.bytes, 2 * cubin_->size());
}

TEST_F(KernelCacheFiles, ClearRemovesOnlyTheCachesOwnFiles) {
  KernelCache cache(dir_);
  cache.store(key_a, entry(true), *cubin_);
  cache.store(key_b, entry(false), "");
  write(file(key_c, ".cubin.tmp.1.2"), "left by a killed compile");
  write(dir_ / "notes.txt", "not the cache's");
  write(dir_ / "aa" / "readme", "not the cache's either");
  EXPECT_EQ(cache.clear(), 2u);
  EXPECT_FALSE(fs::exists(file(key_a, ".json")));
  EXPECT_FALSE(fs::exists(file(key_a, ".cubin")));
  EXPECT_FALSE(fs::exists(file(key_c, ".cubin.tmp.1.2")));
  EXPECT_FALSE(fs::exists(dir_ / "bb"));  // emptied folders go too
  EXPECT_TRUE(fs::exists(dir_ / "notes.txt"));
  EXPECT_TRUE(fs::exists(dir_ / "aa" / "readme"));
  EXPECT_EQ(cache.clear(), 0u);
}

TEST_F(KernelCacheFiles, VerifyRemovesOldStraysAndKeepsFreshOnes) {
  KernelCache cache(dir_);
  cache.store(key_a, entry(true), *cubin_);
  const fs::path old_tmp = file(key_b, ".json.tmp.7.7"), fresh_tmp = file(key_a, ".json.tmp.8.8");
  const fs::path orphan = file(key_c, ".cubin");
  for (const fs::path& p : {old_tmp, fresh_tmp, orphan}) write(p, "x");
  for (const fs::path& p : {old_tmp, orphan}) fs::last_write_time(p, fs::file_time_type::clock::now() - std::chrono::hours(1));
  const KernelCache::Verified v = cache.verify();
  EXPECT_EQ(v.kept, 1u);
  EXPECT_EQ(v.stray_removed, 2u);
  EXPECT_FALSE(fs::exists(old_tmp));
  EXPECT_FALSE(fs::exists(orphan));
  EXPECT_TRUE(fs::exists(fresh_tmp));  // may be a compile in flight
}

TEST_F(KernelCacheFiles, ABadDirectoryIsOneSentence) {
  auto message = [](const KernelCache& c) {
    try {
      c.stats();
    } catch (const CacheDirError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  const std::string missing = message(KernelCache(dir_ / "nowhere"));
  EXPECT_NE(missing.find("does not exist"), std::string::npos) << missing;
  EXPECT_NE(missing.find((dir_ / "nowhere").string()), std::string::npos) << missing;
  write(dir_ / "file", "x");
  const std::string not_dir = message(KernelCache(dir_ / "file"));
  EXPECT_NE(not_dir.find("not a directory"), std::string::npos) << not_dir;
  EXPECT_THROW(KernelCache(dir_ / "nowhere").verify(), CacheDirError);
  EXPECT_THROW(KernelCache(dir_ / "file").clear(), CacheDirError);
  EXPECT_TRUE(fs::exists(dir_ / "file"));
}

}  // namespace
}  // namespace coalesce::tuner
