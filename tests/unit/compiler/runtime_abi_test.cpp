// The runtime's C ABI (coalesce_runtime.h) refusing what it cannot take, with a status and the
// thread's message and without exiting: every check here comes before a device is asked for, so
// none needs a GPU (runtime_test.cu and tests/gpu/runtime_fused_matmul_test.cu run the kernels).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "compiler/runtime/coalesce_runtime.h"
#include "compiler/runtime/mlir_entry.h"

namespace {

// A 16-byte aligned address the refusals never dereference.
void* const kFake = reinterpret_cast<void*>(std::uintptr_t{256});
const char* const kSimt = "simt_f32_bm128_bn128_bk16_wm64_wn32_tm8_tn8_s3_v4_g8_o2_bias_gelu";

CoalesceMemRef2D matrix(std::int64_t rows, std::int64_t cols, void* data = kFake) {
  return {data, data, 0, {rows, cols}, {cols, 1}};
}
CoalesceMemRef1D vector(std::int64_t size) { return {kFake, kFake, 0, {size}, {1}}; }

struct Call {
  CoalesceMemRef2D a = matrix(64, 32), b = matrix(32, 16), c = matrix(64, 16);
  CoalesceMemRef1D bias = vector(16);
  bool with_bias = true;
  coalesce_dtype dtype = COALESCE_F32;
  const char* epilogue = "bias_gelu";
  const char* config = nullptr;
  CoalesceMemRef2D residual = matrix(64, 16, reinterpret_cast<void*>(std::uintptr_t{512}));
  bool with_residual = false;  // through coalesce_fused_matmul_residual
  coalesce_status run() {
    if (with_residual)
      return coalesce_fused_matmul_residual(&a, &b, with_bias ? &bias : nullptr, &residual, &c, dtype, epilogue,
                                            config, nullptr);
    return coalesce_fused_matmul(&a, &b, with_bias ? &bias : nullptr, &c, dtype, epilogue, config, nullptr);
  }
};

// Runs `call` and expects an invalid argument whose message is `message`.
void expect_invalid(Call call, const std::string& message) {
  EXPECT_EQ(call.run(), COALESCE_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(coalesce_last_error()), message);
}

TEST(RuntimeAbi, RefusesBadDescriptors) {
  Call shapes;
  shapes.b = matrix(31, 16);
  expect_invalid(shapes, "A is 64x32 but B is 31x16");
  Call c_shape;
  c_shape.c = matrix(64, 15);
  expect_invalid(c_shape, "C is 64x15, not 64x16");
  // A, B and C may be row slices (rows further apart than their width: the launch copies them),
  // but rows closer than their width or with gaps inside are refused; the residual stays
  // contiguous.
  Call overlapping;
  overlapping.a.strides[0] = 16;
  expect_invalid(overlapping, "A does not have contiguous rows (strides 16, 1)");
  Call column_gaps;
  column_gaps.c.strides[1] = 2;
  expect_invalid(column_gaps, "C does not have contiguous rows (strides 16, 2)");
  Call strided_residual;
  strided_residual.with_residual = true;
  strided_residual.epilogue = "bias_gelu_residual";
  strided_residual.residual.strides[0] = 32;
  expect_invalid(strided_residual, "the residual is not row-major contiguous (strides 32, 1)");
  Call null_data;
  null_data.b = matrix(32, 16, nullptr);
  expect_invalid(null_data, "B has a null data pointer");
  Call short_bias;
  short_bias.bias = vector(15);
  expect_invalid(short_bias, "the bias has 15 entries, not N = 16");
  Call negative;
  negative.a = matrix(-1, 32);
  expect_invalid(negative, "A has extents -1x32 outside 0..1048576");
  Call null_descriptor;
  EXPECT_EQ(coalesce_fused_matmul(nullptr, &null_descriptor.b, &null_descriptor.bias, &null_descriptor.c,
                                  COALESCE_F32, "bias_gelu", nullptr, nullptr),
            COALESCE_INVALID_ARGUMENT);
  EXPECT_STREQ(coalesce_last_error(), "A is a null descriptor");
}

// The offset counts elements of the dtype's storage type: one bf16 element (2 bytes) breaks the
// 16-byte alignment, eight f16 elements (16 bytes) keep it.
TEST(RuntimeAbi, AlignmentCountsTheOffsetInTheDtypesElements) {
  Call bf16;
  bf16.dtype = COALESCE_BF16;
  bf16.a.offset = 1;
  expect_invalid(bf16, "A is not 16-byte aligned");
  Call f16;
  f16.dtype = COALESCE_F16;
  f16.a.offset = 8;  // 16 bytes: aligned, so the next refusal is the config's
  f16.config = kSimt;
  expect_invalid(f16, std::string("config '") + kSimt + "' is for f32 bias_gelu, the call for f16 bias_gelu");
}

TEST(RuntimeAbi, RefusesUnknownDtypesEpiloguesAndConfigs) {
  Call dtype;
  dtype.dtype = static_cast<coalesce_dtype>(7);
  expect_invalid(dtype, "dtype 7 is not COALESCE_F32, _TF32, _BF16 or _F16");
  Call epilogue;
  epilogue.epilogue = "bias_swish";
  expect_invalid(epilogue, "unknown epilogue 'bias_swish' (known: none, bias, bias_relu, bias_gelu, bias_gelu_tanh, bias_silu, bias_gelu_residual, swiglu, geglu)");
  Call null_epilogue;
  null_epilogue.epilogue = nullptr;
  expect_invalid(null_epilogue, "the epilogue is a null string");
  Call config;
  config.config = "simt_f32_fastest";
  EXPECT_EQ(config.run(), COALESCE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(coalesce_last_error()).find("config 'simt_f32_fastest' is not the name of a config"),
            std::string::npos);
}

TEST(RuntimeAbi, TheBiasGoesWithTheEpilogue) {
  Call missing;
  missing.with_bias = false;
  expect_invalid(missing, "the bias_gelu epilogue needs a bias, but none was given");
  Call extra;
  extra.epilogue = "none";
  expect_invalid(extra, "the none epilogue takes no bias, but one was given");
}

// A gated epilogue: B's gate and up columns interleaved (an even N), C of N/2 columns, no bias.
// A well-formed gated call gets past every argument check: with M = 0 it is done without a device.
TEST(RuntimeAbi, AGatedEpilogueTakesHalfTheColumnsAndNoBias) {
  Call full_c;
  full_c.epilogue = "swiglu";
  full_c.with_bias = false;
  expect_invalid(full_c, "C is 64x16, not 64x8 (a gated epilogue writes N/2 columns)");
  Call odd;
  odd.epilogue = "geglu";
  odd.with_bias = false;
  odd.b = matrix(32, 15);
  odd.c = matrix(64, 7);
  expect_invalid(odd, "the geglu epilogue needs B's gate and up columns interleaved, an even N, but B is 32x15");
  Call biased;
  biased.epilogue = "swiglu";
  biased.c = matrix(64, 8);
  expect_invalid(biased, "the swiglu epilogue takes no bias, but one was given");
  Call empty;
  empty.epilogue = "swiglu";
  empty.with_bias = false;
  empty.a = matrix(0, 32);
  empty.c = matrix(0, 8);
  EXPECT_EQ(empty.run(), COALESCE_OK) << coalesce_last_error();
}

// A residual epilogue reads an M x N residual of C's type, through coalesce_fused_matmul_residual:
// one missing, given to another epilogue, of another shape or aliasing C is refused; a named
// config of a family whose kernels read no residual is refused with that reason, before a
// device; a well-formed call with M = 0 is done without one.
TEST(RuntimeAbi, AResidualEpilogueTakesAnMxNResidual) {
  Call missing;
  missing.epilogue = "bias_gelu_residual";
  expect_invalid(missing, "the bias_gelu_residual epilogue needs an M x N residual (coalesce_fused_matmul_residual), "
                          "but none was given");
  Call extra;
  extra.with_residual = true;
  expect_invalid(extra, "the bias_gelu epilogue takes no residual, but one was given");
  Call shape;
  shape.epilogue = "bias_gelu_residual";
  shape.with_residual = true;
  shape.residual = matrix(64, 8);
  expect_invalid(shape, "the residual is 64x8, not C's 64x16");
  Call aliased;
  aliased.epilogue = "bias_gelu_residual";
  aliased.with_residual = true;
  aliased.residual = aliased.c;
  expect_invalid(aliased, "the residual is C itself; the kernels read it while they write C");
  Call simt;
  simt.epilogue = "bias_gelu_residual";
  simt.with_residual = true;
  simt.config = "simt_f32_bm128_bn128_bk16_wm64_wn32_tm8_tn8_s3_v4_g8_o2_bias_gelu_residual";
  EXPECT_EQ(simt.run(), COALESCE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(coalesce_last_error()).find("cannot run 64x16x32 (epilogue): the family's kernels read no M×N "
                                                    "residual"),
            std::string::npos)
      << coalesce_last_error();
  Call empty;
  empty.epilogue = "bias_gelu_residual";
  empty.with_residual = true;
  empty.a = matrix(0, 32);
  empty.c = matrix(0, 16);
  empty.residual = matrix(0, 16);
  EXPECT_EQ(empty.run(), COALESCE_OK) << coalesce_last_error();
}

// A config whose own rule refuses the shape is refused without a device: simt's vec = 4 copies
// B four floats at a time, so N = 30 is not a multiple.
TEST(RuntimeAbi, ANamedConfigIsJudgedOnTheProblemBeforeTheDevice) {
  Call call;
  call.b = matrix(32, 30);
  call.c = matrix(64, 30);
  call.bias = vector(30);
  call.config = kSimt;
  EXPECT_EQ(call.run(), COALESCE_INVALID_ARGUMENT);
  EXPECT_NE(std::string(coalesce_last_error()).find(std::string("config '") + kSimt + "' cannot run 64x30x32"),
            std::string::npos)
      << coalesce_last_error();
}

// An empty product (M = 0) is done without a device, and a success clears the message.
TEST(RuntimeAbi, AnEmptyProblemSucceedsAndClearsTheMessage) {
  Call bad;
  bad.epilogue = "bogus";
  EXPECT_EQ(bad.run(), COALESCE_INVALID_ARGUMENT);
  Call empty;
  empty.a = matrix(0, 32);
  empty.c = matrix(0, 16);
  EXPECT_EQ(empty.run(), COALESCE_OK);
  EXPECT_STREQ(coalesce_last_error(), "");
}

TEST(RuntimeAbi, TheMessageBelongsToTheCallingThread) {
  Call bad;
  bad.epilogue = "bogus";
  EXPECT_EQ(bad.run(), COALESCE_INVALID_ARGUMENT);
  std::string other = "unset";
  std::thread([&] { other = coalesce_last_error(); }).join();
  EXPECT_EQ(other, "");
  EXPECT_NE(std::string(coalesce_last_error()), "");
}

TEST(RuntimeAbi, RegisteringACubinChecksItsNameAndImage) {
  const char image[] = "not loaded until the config's first call";
  EXPECT_EQ(coalesce_register_cubin(kSimt, COALESCE_F32, "bias_gelu", image, sizeof image), COALESCE_OK);
  EXPECT_EQ(coalesce_register_cubin(kSimt, COALESCE_BF16, "bias_gelu", image, sizeof image),
            COALESCE_INVALID_ARGUMENT);
  EXPECT_EQ(coalesce_register_cubin("nonsense", COALESCE_F32, "bias_gelu", image, sizeof image),
            COALESCE_INVALID_ARGUMENT);
  EXPECT_EQ(coalesce_register_cubin(kSimt, COALESCE_F32, "bias_gelu", nullptr, 0), COALESCE_INVALID_ARGUMENT);
  EXPECT_EQ(coalesce_register_cubin(nullptr, COALESCE_F32, "bias_gelu", image, sizeof image),
            COALESCE_INVALID_ARGUMENT);
}

// Registered while this executable's static objects are constructed, as an emitted program's
// ahead-of-time cubins are (compiler/runtime/mlir_entry.h): the names must parse before the
// library's own units have run their initialisers (the MLP examples failed here on the GPU host).
const char kLoadTimeImage[] = "not loaded until the config's first call";
const coalesce::runtime::AotCubin kLoadTimeWgmma("wgmma_bf16_bm128_bn128_bk64_s6_wg2_cm1_cn1_p1_g8_ts1_bias_gelu",
                                                 COALESCE_BF16, "bias_gelu", kLoadTimeImage, sizeof kLoadTimeImage);
const coalesce::runtime::AotCubin kLoadTimeSimt("simt_f32_bm128_bn128_bk16_wm64_wn32_tm8_tn8_s3_v4_g8_o2_sk2_bias_gelu",
                                                COALESCE_F32, "bias_gelu", kLoadTimeImage, sizeof kLoadTimeImage);

TEST(RuntimeAbi, AheadOfTimeCubinsRegisterWhileTheProgramLoads) {
  EXPECT_TRUE(kLoadTimeWgmma.ok()) << kLoadTimeWgmma.message();
  EXPECT_TRUE(kLoadTimeSimt.ok()) << kLoadTimeSimt.message();
}

TEST(RuntimeAbi, ATuningTableThatDoesNotLoadIsRefusedWithItsLine) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "coalesce_runtime_abi_test";
  std::filesystem::create_directories(dir);
  const std::filesystem::path good = dir / "good.tsv", bad = dir / "bad.tsv";
  std::ofstream(good) << "gpu_model\tdtype\tepilogue\tm\tn\tk\tconfig_name\tmedian_us\n"
                      << "NVIDIA H200\tf32\tbias_gelu\t64\t16\t32\t" << kSimt << "\t3.5\n";
  std::ofstream(bad) << "gpu_model\tdtype\tepilogue\tm\tn\tk\tconfig_name\tmedian_us\n"
                     << "NVIDIA H200\tf32\tbias_gelu\t64\t16\tx\t" << kSimt << "\t3.5\n";
  EXPECT_EQ(coalesce_load_tuning_table(good.c_str()), COALESCE_OK);
  EXPECT_EQ(coalesce_load_tuning_table(bad.c_str()), COALESCE_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(coalesce_last_error()), bad.string() + ":2: k 'x' is not an integer from 1 to 1048576");
  EXPECT_EQ(coalesce_load_tuning_table((dir / "missing.tsv").c_str()), COALESCE_INVALID_ARGUMENT);
  EXPECT_EQ(coalesce_load_tuning_table(dir.c_str()), COALESCE_INVALID_ARGUMENT);
  EXPECT_EQ(coalesce_load_tuning_table(nullptr), COALESCE_INVALID_ARGUMENT);
  std::filesystem::remove_all(dir);
}

}  // namespace
