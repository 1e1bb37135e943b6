// Replays on the CPU every copy and every fragment read the mma kernel makes for a config, with
// the layout functions the kernel itself calls (kernels/mma/layout.hpp), and checks that
//   - the block's copies put every byte of an A or B tile in shared memory exactly once, where
//     SmemTile::offset says it is;
//   - every ldmatrix (emulated as the PTX ISA describes it) and every 8-byte load of tf32 B hands
//     each lane exactly the elements the mma fragment layouts of the PTX ISA ask for, in the
//     order the kernel passes them to mma.sync (tf32: with the operands swapped, A^T as the
//     B operand and B^T with its 16 columns permuted as the A operand);
//   - no fragment read has a shared-memory bank conflict (one wavefront per 8 ldmatrix rows,
//     per half-warp of 8-byte loads);
//   - the epilogue's staging puts every accumulator of the C fragment layout (tf32: of the
//     swapped tiles) at its row and column and reads each back exactly once, without bank
//     conflicts;
//   - tf32 end to end: one slice of random A and B through the copies, every warp's fragment
//     reads, the mma as the PTX ISA defines it on the fragments the kernel passes, and the
//     staging gives the plain product.
// This is the part of the kernel a wrong index would break silently; the GPU test
// (tests/gpu/mma_test.cu) checks the arithmetic on the device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/mma/config.hpp"
#include "kernels/mma/layout.hpp"

namespace {

using namespace coalesce;
using namespace coalesce::mma_layout;

// A byte of the logical operand tile: distinct for every (row, col) of a tile up to 2^16 x 2^8.
std::uint8_t logical_byte(int operand, int row, int col) {
  std::uint32_t h = static_cast<std::uint32_t>(operand * 0x9e3779b1u) ^ static_cast<std::uint32_t>(row * 0x85ebca6bu) ^
                    static_cast<std::uint32_t>(col * 0xc2b2ae35u);
  h ^= h >> 15;
  h *= 0x2c1b3c6du;
  h ^= h >> 12;
  return static_cast<std::uint8_t>(h);
}
std::uint32_t logical_bytes(int operand, int row, int col, int n) {
  std::uint32_t v = 0;
  for (int b = 0; b < n; ++b) v |= static_cast<std::uint32_t>(logical_byte(operand, row, col + b)) << (8 * b);
  return v;
}

struct Smem {
  std::vector<std::uint8_t> bytes;
  std::uint32_t word(int at) const {  // little-endian, as the GPU reads it
    std::uint32_t v;
    std::memcpy(&v, &bytes.at(static_cast<std::size_t>(at)), 4);
    return v;
  }
  std::uint32_t half(int at) const { return bytes.at(static_cast<std::size_t>(at)) | (bytes.at(static_cast<std::size_t>(at) + 1) << 8); }
};

// Fills a tile through the kernel's copies (MmaMainloop::run's load_slice) with byte(row, col) of
// the logical tile and checks coverage.
template <class Tile, class Plan, int THREADS, int VEC, class Byte>
Smem copy_tile(Byte byte, int rows, int row_bytes, std::vector<std::string>& errors) {
  Smem s{std::vector<std::uint8_t>(Tile::kBytes, 0)};
  std::vector<int> written(Tile::kBytes, 0);
  std::set<long> logical;
  for (int tid = 0; tid < THREADS; ++tid) {
    const int r0 = Plan::row0(tid), c0 = Plan::col0(tid);
    const int base = Tile::offset(r0, c0);
    for (int i = 0; i < Plan::kCopies; ++i) {
      const int dr = Plan::row_of(i), dc = Plan::col_of(i);
      const int dst = dr % Tile::kKeyPeriod == 0 ? Tile::shifted(base, dr, dc) : Tile::offset(r0 + dr, c0 + dc);
      const int row = r0 + dr, col = c0 + dc;
      if (row >= rows || col + VEC > row_bytes || dst < 0 || dst + VEC > Tile::kBytes) {
        errors.push_back("copy outside the tile: thread " + std::to_string(tid) + " copy " + std::to_string(i));
        continue;
      }
      if (dst != Tile::offset(row, col)) errors.push_back("a copy's shifted offset differs from offset()");
      logical.insert(static_cast<long>(row) * row_bytes + col);
      for (int b = 0; b < VEC; ++b) {
        s.bytes[static_cast<std::size_t>(dst + b)] = byte(row, col + b);
        ++written[static_cast<std::size_t>(dst + b)];
      }
    }
  }
  int total = 0;
  for (int w : written) {
    if (w > 1) errors.push_back("a shared-memory byte is written twice");
    total += w;
  }
  if (total != rows * row_bytes || static_cast<int>(logical.size()) * VEC != rows * row_bytes)
    errors.push_back("the copies do not cover the tile exactly once");
  for (int row = 0; row < rows; ++row)
    for (int col = 0; col < row_bytes; ++col)
      if (s.bytes[static_cast<std::size_t>(Tile::offset(row, col))] != byte(row, col)) {
        errors.push_back("offset(" + std::to_string(row) + ", " + std::to_string(col) + ") does not hold its byte");
        return s;
      }
  return s;
}

// ldmatrix.x4: lanes 8i..8i+7 give the row addresses of matrix i; lane l receives, in register
// i, bytes 4(l%4)..4(l%4)+3 of row l/4 of matrix i.
void ldmatrix_x4(const Smem& s, const int (&addr)[32], std::uint32_t (&r)[32][4]) {
  for (int l = 0; l < 32; ++l)
    for (int i = 0; i < 4; ++i) r[l][i] = s.word(addr[8 * i + l / 4] + 4 * (l % 4));
}
// ldmatrix.x4.trans (16-bit elements): lane l receives, in register i, the elements of matrix i
// at (row 2(l%4), column l/4) in its low half and (row 2(l%4)+1, column l/4) in its high half.
void ldmatrix_x4_trans(const Smem& s, const int (&addr)[32], std::uint32_t (&r)[32][4]) {
  for (int l = 0; l < 32; ++l)
    for (int i = 0; i < 4; ++i)
      r[l][i] = s.half(addr[8 * i + 2 * (l % 4)] + 2 * (l / 4)) | (s.half(addr[8 * i + 2 * (l % 4) + 1] + 2 * (l / 4)) << 16);
}

// One ldmatrix phase per matrix: its 8 16-byte rows must sit in 8 different bank groups.
bool ldmatrix_conflict_free(const int (&addr)[32]) {
  for (int i = 0; i < 4; ++i) {
    std::set<int> groups;
    for (int r = 0; r < 8; ++r) {
      if (addr[8 * i + r] % 16 != 0) return false;
      groups.insert((addr[8 * i + r] / 16) % 8);
    }
    if (groups.size() != 8) return false;
  }
  return true;
}
// An 8-byte load, one wavefront per half-warp: within a half-warp, distinct aligned 8-byte words
// must sit in distinct bank pairs.
bool pairs_conflict_free(const int (&addr)[32]) {
  for (int a = 0; a < 32; ++a) {
    if (addr[a] % 8 != 0) return false;
    for (int b = a + 1; b < 32; ++b)
      if (a / 16 == b / 16 && addr[a] != addr[b] && (addr[a] / 8) % 16 == (addr[b] / 8) % 16) return false;
  }
  return true;
}

// tf32's permutation of a 16-column block of B as the mma's A operand (kernels/mma/gemm.cuh):
// operand row i is column 2i of the block, row i+8 column 2i+1.
int swapped_column(int i) { return i < 8 ? 2 * i : 2 * (i - 8) + 1; }

// Every copy and fragment read of one config for one element size (2: bf16/f16, 4: tf32).
template <int BM, int BN, int BK, int WM, int WN, int VEC, int SWIZZLE, int ELEM>
std::vector<std::string> replay() {
  constexpr MmaConfig cfg{BM, BN, BK, WM, WN, 3, VEC, SWIZZLE, 8, 1};
  static_assert(cfg.check().ok(), "a replayed config is legal");
  constexpr int THREADS = cfg.threads(), KS = cfg.k_steps(), MI = WM / 16, NI = WN / 8;
  constexpr int B_ROWS = BK / ELEM;
  constexpr bool TF32 = ELEM == 4;
  using ATile = SmemTile<BM, BK, SWIZZLE != 0, 1>;
  using BTile = SmemTile<B_ROWS, BN * ELEM, SWIZZLE != 0, TF32 ? 2 : 1>;
  static_assert(ATile::kBytes + BTile::kBytes == cfg.stage_bytes(), "the layouts are MmaConfig's stage");
  std::vector<std::string> errors;
  const Smem a = copy_tile<ATile, CopyPlan<BM, BK, VEC, THREADS>, THREADS, VEC>(
      [](int row, int col) { return logical_byte(0, row, col); }, BM, BK, errors);
  const Smem b = copy_tile<BTile, CopyPlan<B_ROWS, BN * ELEM, VEC, THREADS>, THREADS, VEC>(
      [](int row, int col) { return logical_byte(1, row, col); }, B_ROWS, BN * ELEM, errors);
  if (!errors.empty()) return errors;

  using ALanes = std::conditional_t<TF32, Tf32ALanes, LdmatrixLanes>;
  for (int warp = 0; warp < THREADS / 32; ++warp) {
    const int warp_m = warp / (BN / WN), warp_n = warp % (BN / WN);
    for (int ks = 0; ks < KS; ++ks) {
      // A: for tile row mi the lane receives
      //   bf16/f16: reg i = row g + 8(i%2), bytes 16(i/2) + 4t of the k-step, a0a1, a2a3, a4a5,
      //     a6a7 of the PTX A layout;
      //   tf32: reg i = row g + 8(i/2), bytes 16(i%2) + 4t, i.e. regs {2h, 2h+1} = b0, b1 of the
      //     PTX B layout (k = t and t+4, n = g) of A^T over rows 16mi + 8h.
      for (int mi = 0; mi < MI; ++mi) {
        int addr[32];
        for (int l = 0; l < 32; ++l) {
          const int row = warp_m * WM + ALanes::row(l), col = ALanes::col(l);
          addr[l] = ATile::shifted(ATile::offset(row, col), mi * 16, ks * 32);
          if (addr[l] != ATile::offset(row + mi * 16, col + ks * 32)) errors.push_back("A: shifted() != offset()");
        }
        if (!ldmatrix_conflict_free(addr)) errors.push_back("A: ldmatrix bank conflict");
        std::uint32_t r[32][4];
        ldmatrix_x4(a, addr, r);
        for (int l = 0; l < 32; ++l)
          for (int i = 0; i < 4; ++i) {
            const int g = l / 4, t = l % 4;
            const int row = warp_m * WM + mi * 16 + g + 8 * (TF32 ? i / 2 : i % 2),
                      col = ks * 32 + 16 * (TF32 ? i % 2 : i / 2) + 4 * t;
            if (r[l][i] != logical_bytes(0, row, col, 4))
              errors.push_back("A fragment: warp " + std::to_string(warp) + " ks " + std::to_string(ks) + " mi " +
                               std::to_string(mi) + " lane " + std::to_string(l) + " reg " + std::to_string(i));
          }
      }
      if (!TF32) {
        // B (16-bit), tiles 2p and 2p+1 from one ldmatrix.trans: b[n][j] holds k = 2t+8j and
        // 2t+8j+1 (low, high) of column g.
        for (int p = 0; p < NI / 2; ++p) {
          int addr[32];
          for (int l = 0; l < 32; ++l) {
            const int row = LdmatrixLanes::row(l), col = warp_n * WN * ELEM + LdmatrixLanes::col(l);
            addr[l] = BTile::shifted(BTile::offset(row, col), ks * 16, p * 32);
            if (addr[l] != BTile::offset(row + ks * 16, col + p * 32)) errors.push_back("B: shifted() != offset()");
          }
          if (!ldmatrix_conflict_free(addr)) errors.push_back("B: ldmatrix bank conflict");
          std::uint32_t r[32][4];
          ldmatrix_x4_trans(b, addr, r);
          for (int l = 0; l < 32; ++l)
            for (int i = 0; i < 4; ++i) {
              const int g = l / 4, t = l % 4;
              const int n = warp_n * WN + (2 * p + i / 2) * 8 + g, k = ks * 16 + 8 * (i % 2) + 2 * t;
              const std::uint32_t want = logical_bytes(1, k, 2 * n, 2) | (logical_bytes(1, k + 1, 2 * n, 2) << 16);
              if (r[l][i] != want)
                errors.push_back("B fragment: warp " + std::to_string(warp) + " ks " + std::to_string(ks) + " pair " +
                                 std::to_string(p) + " lane " + std::to_string(l) + " reg " + std::to_string(i));
            }
        }
      } else {
        // B (tf32) as the swapped mma's A operand B^T over 16-column block p: b[2p + h][j], one
        // 8-byte load per h, is PTX A register 2h + j, i.e. operand row g + 8j (column
        // swapped_column(g + 8j) = 2g + j of the block) at k = t + 4h.
        for (int p = 0; p < NI / 2; ++p)
          for (int h = 0; h < 2; ++h) {
            int addr[32];
            for (int l = 0; l < 32; ++l) {
              const int row = Tf32BLanes::row(l), col = warp_n * WN * ELEM + Tf32BLanes::col(l);
              addr[l] = BTile::shifted(BTile::offset(row, col), ks * 8 + 4 * h, p * 64);
              if (addr[l] != BTile::offset(row + ks * 8 + 4 * h, col + p * 64))
                errors.push_back("tf32 B: shifted() != offset()");
            }
            if (!pairs_conflict_free(addr)) errors.push_back("tf32 B: bank conflict");
            for (int l = 0; l < 32; ++l)
              for (int j = 0; j < 2; ++j) {
                const int g = l / 4, t = l % 4;
                const int n = warp_n * WN + 16 * p + swapped_column(g + 8 * j), k = ks * 8 + t + 4 * h;
                if (b.word(addr[l] + 4 * j) != logical_bytes(1, k, 4 * n, 4))
                  errors.push_back("tf32 B fragment: warp " + std::to_string(warp) + " lane " + std::to_string(l));
              }
          }
      }
      if (errors.size() > 20) return errors;
    }
  }
  return errors;
}

// mma.m16n8k8 with tf32 operands as the PTX ISA defines it on the 32 lanes' registers:
// a0..a3 = A(g, t), A(g+8, t), A(g, t+4), A(g+8, t+4); b0, b1 = B(t, g), B(t+4, g);
// d0..d3 += D(g, 2t), D(g, 2t+1), D(g+8, 2t), D(g+8, 2t+1). The values are small integers, so
// TF32's truncation and the order of the sums do not matter.
void mma_m16n8k8(const std::uint32_t (&a)[32][4], const std::uint32_t (&b)[32][2], float (&d)[32][4]) {
  auto as_float = [](std::uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  };
  float am[16][8], bm[8][8];
  for (int l = 0; l < 32; ++l) {
    const int g = l / 4, t = l % 4;
    for (int r = 0; r < 4; ++r) am[g + 8 * (r % 2)][t + 4 * (r / 2)] = as_float(a[l][r]);
    for (int r = 0; r < 2; ++r) bm[t + 4 * r][g] = as_float(b[l][r]);
  }
  for (int l = 0; l < 32; ++l) {
    const int g = l / 4, t = l % 4;
    for (int r = 0; r < 4; ++r)
      for (int k = 0; k < 8; ++k) d[l][r] += am[g + 8 * (r / 2)][k] * bm[k][2 * t + r % 2];
  }
}

// tf32 end to end: one slice of random A (BM × BK/4) and B (BK/4 × BN) through the kernel's
// copies, each warp's fragment reads of every k-step, the swapped mma on the registers
// MmaMath<Math::tf32>::mma_tile passes (B^T pairs b[2·column_block], b[2·column_block + 1] as
// a0a1, a2a3; a[mi] registers 2·row_half, 2·row_half + 1 as b0b1), then the staging and its
// read-back, against the plain product.
template <int BM, int BN, int BK, int WM, int WN, int VEC, int SWIZZLE>
std::vector<std::string> replay_tf32_product() {
  constexpr MmaConfig cfg{BM, BN, BK, WM, WN, 3, VEC, SWIZZLE, 8, 1};
  constexpr int THREADS = cfg.threads(), KS = cfg.k_steps(), MI = WM / 16, NI = WN / 8, K = BK / 4;
  using ATile = SmemTile<BM, BK, SWIZZLE != 0, 1>;
  using BTile = SmemTile<K, BN * 4, SWIZZLE != 0, 2>;
  using Staged = StagedEpilogue<WN, true>;
  std::vector<std::string> errors;

  std::mt19937 rng(static_cast<unsigned>(BM * 131 + BN * 17 + BK * 7 + WM * 5 + WN * 3 + VEC + SWIZZLE));
  std::uniform_int_distribution<int> value(-8, 8);
  std::vector<float> A(static_cast<std::size_t>(BM) * K), B(static_cast<std::size_t>(K) * BN);
  for (float& x : A) x = static_cast<float>(value(rng));
  for (float& x : B) x = static_cast<float>(value(rng));
  auto bytes_of = [](const std::vector<float>& m, int cols) {
    return [&m, cols](int row, int col) {
      std::uint32_t bits;
      std::memcpy(&bits, &m[static_cast<std::size_t>(row) * cols + col / 4], 4);
      return static_cast<std::uint8_t>(bits >> (8 * (col % 4)));
    };
  };
  const Smem a = copy_tile<ATile, CopyPlan<BM, BK, VEC, THREADS>, THREADS, VEC>(bytes_of(A, K), BM, BK, errors);
  const Smem b = copy_tile<BTile, CopyPlan<K, BN * 4, VEC, THREADS>, THREADS, VEC>(bytes_of(B, BN), K, BN * 4, errors);
  if (!errors.empty()) return errors;

  for (int warp = 0; warp < THREADS / 32; ++warp) {
    const int warp_m = warp / (BN / WN), warp_n = warp % (BN / WN);
    float acc[MI][NI][32][4] = {};
    for (int ks = 0; ks < KS; ++ks) {
      std::uint32_t ar[MI][32][4], br[NI][32][2];
      for (int mi = 0; mi < MI; ++mi) {
        int addr[32];
        for (int l = 0; l < 32; ++l)
          addr[l] = ATile::shifted(ATile::offset(warp_m * WM + Tf32ALanes::row(l), Tf32ALanes::col(l)), mi * 16, ks * 32);
        ldmatrix_x4(a, addr, ar[mi]);
      }
      for (int p = 0; p < NI / 2; ++p)
        for (int h = 0; h < 2; ++h)
          for (int l = 0; l < 32; ++l) {
            const int at = BTile::shifted(BTile::offset(Tf32BLanes::row(l), warp_n * WN * 4 + Tf32BLanes::col(l)),
                                          ks * 8 + 4 * h, p * 64);
            for (int j = 0; j < 2; ++j) br[2 * p + h][l][j] = b.word(at + 4 * j);
          }
      for (int mi = 0; mi < MI; ++mi)
        for (int ni = 0; ni < NI; ++ni) {
          const int cb = Tf32SwappedTiles::column_block(ni), rh = Tf32SwappedTiles::row_half(ni);
          std::uint32_t op_a[32][4], op_b[32][2];
          for (int l = 0; l < 32; ++l) {
            op_a[l][0] = br[2 * cb][l][0];
            op_a[l][1] = br[2 * cb][l][1];
            op_a[l][2] = br[2 * cb + 1][l][0];
            op_a[l][3] = br[2 * cb + 1][l][1];
            op_b[l][0] = ar[mi][l][2 * rh];
            op_b[l][1] = ar[mi][l][2 * rh + 1];
          }
          mma_m16n8k8(op_a, op_b, acc[mi][ni]);
        }
    }
    // mma_store_tile's passes: stage 16 rows, read each lane's 4 columns of its rows back.
    for (int mi = 0; mi < MI; ++mi) {
      std::vector<float> stage(16 * Staged::kStride, -1e30f);
      for (int ni = 0; ni < NI; ++ni)
        for (int h = 0; h < 2; ++h)
          for (int l = 0; l < 32; ++l)
            for (int v = 0; v < 2; ++v)
              stage[static_cast<std::size_t>(Staged::fragment_offset(l, ni, h) + v)] = acc[mi][ni][l][Staged::value(h, v)];
      for (int l = 0; l < 32; ++l)
        for (int r = Staged::read_row(l); r < 16; r += Staged::kRowsPerPass)
          for (int v = 0; v < 4; ++v) {
            const int m = warp_m * WM + mi * 16 + r, n = warp_n * WN + Staged::read_col(l) + v;
            float want = 0;
            for (int k = 0; k < K; ++k) want += A[static_cast<std::size_t>(m) * K + k] * B[static_cast<std::size_t>(k) * BN + n];
            if (stage[static_cast<std::size_t>(r * Staged::kStride + Staged::read_col(l) + v)] != want)
              errors.push_back("C[" + std::to_string(m) + "][" + std::to_string(n) + "] (warp " + std::to_string(warp) +
                               ", lane " + std::to_string(l) + ") is not the product");
          }
      if (errors.size() > 20) return errors;
    }
  }
  return errors;
}

void expect_none(const std::vector<std::string>& errors, const std::string& what) {
  std::string all;
  for (std::size_t i = 0; i < errors.size() && i < 8; ++i) all += "\n  " + errors[i];
  EXPECT_TRUE(errors.empty()) << what << ": " << errors.size() << " problems:" << all;
}

template <int BM, int BN, int BK, int WM, int WN, int VEC, int SWIZZLE>
void replay_config(const std::string& what) {
  expect_none(replay<BM, BN, BK, WM, WN, VEC, SWIZZLE, 2>(), what + " (bf16/f16)");
  expect_none(replay<BM, BN, BK, WM, WN, VEC, SWIZZLE, 4>(), what + " (tf32)");
  expect_none(replay_tf32_product<BM, BN, BK, WM, WN, VEC, SWIZZLE>(), what + " (tf32 product)");
}

// Where accumulator r (0..3) of tile ni of lane l belongs in a warp's 16-row pass (row · WN +
// column): the C fragment layout, or for tf32's swapped tiles that of D^T, whose row i is column
// swapped_column(i) of block ni / 2 and whose column j is row 8·(ni % 2) + j.
int accumulator_position(bool swapped, int wn, int l, int ni, int r) {
  const int g = l / 4, t = l % 4;
  if (!swapped) return (g + 8 * (r / 2)) * wn + ni * 8 + 2 * t + r % 2;
  return (8 * (ni % 2) + 2 * t + r % 2) * wn + 16 * (ni / 2) + swapped_column(g + 8 * (r / 2));
}

// The epilogue's staging for a warp tile WN wide: the 8-byte writes of the accumulators (each
// at its accumulator_position) and the 16-byte reads.
template <int WN, bool SWAPPED>
void replay_epilogue() {
  using S = StagedEpilogue<WN, SWAPPED>;
  SCOPED_TRACE("WN " + std::to_string(WN) + (SWAPPED ? " swapped" : ""));
  ASSERT_LE(S::kStride, MmaConfig::epilogue_row_floats(WN)) << "the stage outgrows MmaConfig::epilogue_bytes()";
  std::vector<int> at(16 * S::kStride, -1);  // which (row, col) each staged float holds
  for (int ni = 0; ni < WN / 8; ++ni)
    for (int h = 0; h < 2; ++h) {
      int words[32];
      for (int l = 0; l < 32; ++l) {
        const int off = S::fragment_offset(l, ni, h);
        ASSERT_EQ(off % 2, 0) << "a float2 write is misaligned";
        words[l] = off;
        for (int v = 0; v < 2; ++v) {
          ASSERT_EQ(at[off + v], -1) << "staged twice";
          at[off + v] = accumulator_position(SWAPPED, WN, l, ni, S::value(h, v));
        }
      }
      // 8-byte writes: each half-warp's 16 pairs of words in 16 different bank pairs.
      for (int half = 0; half < 2; ++half) {
        std::set<int> pairs;
        for (int l = 16 * half; l < 16 * half + 16; ++l) pairs.insert((words[l] / 2) % 16);
        EXPECT_EQ(pairs.size(), 16u) << "bank conflict staging tile " << ni;
      }
    }
  std::vector<int> read(16 * WN, 0);
  for (int pass = 0; pass < 16 / S::kRowsPerPass; ++pass) {
    std::set<int> groups[4];
    for (int l = 0; l < 32; ++l) {
      const int r = S::read_row(l) + pass * S::kRowsPerPass, c = S::read_col(l);
      for (int v = 0; v < 4; ++v) {
        EXPECT_EQ(at[r * S::kStride + c + v], r * WN + c + v) << "lane " << l << " reads the wrong accumulator";
        ++read[static_cast<std::size_t>(r * WN + c + v)];
      }
      groups[l / 8].insert(((r * S::kStride + c) / 4) % 8);
    }
    if (WN >= 32)
      for (const auto& g : groups) EXPECT_EQ(g.size(), 8u) << "bank conflict reading the stage";
  }
  for (int n : read) EXPECT_EQ(n, 1) << "an accumulator is stored " << n << " times";
}

TEST(MmaLayout, EpilogueStaging) {
  replay_epilogue<16, false>();
  replay_epilogue<32, false>();
  replay_epilogue<64, false>();
  replay_epilogue<128, false>();
}

TEST(MmaLayout, EpilogueStagingSwapped) {
  replay_epilogue<16, true>();
  replay_epilogue<32, true>();
  replay_epilogue<64, true>();
  replay_epilogue<128, true>();
}

float as_float(unsigned u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
unsigned as_bits(float f) {
  unsigned u;
  std::memcpy(&u, &f, 4);
  return u;
}
// What the tensor core reads of an f32 operand: its top 19 bits (TF32, truncated).
double tf32_read(unsigned u) { return as_float(u & 0xFFFFE000u); }

// 3xTF32's split (f32 on the mma family): hi is TF32 (nothing below its 10 mantissa bits), the
// nearest one to x (ties away from zero), and hi + lo == x exactly; with lo read truncated by the
// tensor core and lo·lo dropped, the three products are within 1.25·2^-20 of a·b, where one
// TF32 product is off by up to 2^-9.
TEST(MmaLayout, Tf32SplitIsExactAndNearest) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uni(-1.0f, 1.0f);
  std::vector<float> values = {0.0f, -0.0f, 1.0f, -1.0f, 3.0e-39f /* subnormal */, 1.0e30f, -7.5e-20f};
  for (int i = 0; i < 100000; ++i) values.push_back(uni(rng) * std::ldexp(1.0f, static_cast<int>(rng() % 40) - 20));
  for (float x : values) {
    unsigned hi = 0, lo = 0;
    mma_layout::split_tf32(as_bits(x), hi, lo);
    ASSERT_EQ(hi & 0x1FFFu, 0u) << x;
    ASSERT_EQ(static_cast<double>(as_float(hi)) + as_float(lo), static_cast<double>(x)) << x;
    // Half a TF32 step: 2^-11 of x where x is normal; below, TF32's steps are 2^-136 apart.
    const double half_step = std::fabs(x) >= std::ldexp(1.0, -126) ? std::ldexp(std::fabs(static_cast<double>(x)), -11)
                                                                    : std::ldexp(1.0, -137);
    ASSERT_LE(std::fabs(static_cast<double>(as_float(lo))), half_step) << x;
  }
  // Half a TF32 step above 1 rounds away from zero (up), one f32 step less rounds down; the same
  // below -1.
  unsigned hi = 0, lo = 0;
  mma_layout::split_tf32(0x3F801000u, hi, lo);
  EXPECT_EQ(hi, 0x3F802000u);
  mma_layout::split_tf32(0x3F800FFFu, hi, lo);
  EXPECT_EQ(hi, 0x3F800000u);
  mma_layout::split_tf32(0xBF801000u, hi, lo);
  EXPECT_EQ(hi, 0xBF802000u);

  double worst3 = 0, worst1 = 0;
  for (int i = 0; i < 100000; ++i) {
    const float a = uni(rng), b = uni(rng);
    if (a == 0.0f || b == 0.0f) continue;
    unsigned ah, al, bh, bl;
    mma_layout::split_tf32(as_bits(a), ah, al);
    mma_layout::split_tf32(as_bits(b), bh, bl);
    const double three = tf32_read(bl) * tf32_read(ah) + tf32_read(bh) * tf32_read(al) + tf32_read(bh) * tf32_read(ah);
    const double one = tf32_read(as_bits(a)) * tf32_read(as_bits(b));
    const double exact = static_cast<double>(a) * b;
    worst3 = std::max(worst3, std::fabs(three - exact) / std::fabs(exact));
    worst1 = std::max(worst1, std::fabs(one - exact) / std::fabs(exact));
  }
  EXPECT_LE(worst3, 1.25 * std::ldexp(1.0, -20));
  EXPECT_GT(worst1, std::ldexp(1.0, -11));
}

#define COALESCE_REPLAY(BM, BN, BK, WM, WN, VEC) \
  replay_config<BM, BN, BK, WM, WN, VEC, 1>(#BM "x" #BN " bk" #BK " w" #WM "x" #WN " v" #VEC " swizzled"); \
  replay_config<BM, BN, BK, WM, WN, VEC, 0>(#BM "x" #BN " bk" #BK " w" #WM "x" #WN " v" #VEC " padded")

// The built-in configs' tiles and copies.
TEST(MmaLayout, BuiltinTiles) {
  COALESCE_REPLAY(128, 256, 64, 64, 64, 16);
  COALESCE_REPLAY(128, 128, 64, 64, 64, 16);
  COALESCE_REPLAY(64, 64, 64, 32, 32, 16);
  COALESCE_REPLAY(128, 128, 64, 64, 64, 8);
  COALESCE_REPLAY(128, 128, 64, 64, 64, 4);
  COALESCE_REPLAY(128, 128, 64, 64, 32, 2);
}

// Every K slice, warp shape and copy width of the sweep's lists, and the extremes of the rule
// (16x16 warps, 256-byte slices, a block wider than its threads' copies).
TEST(MmaLayout, SweepTiles) {
  COALESCE_REPLAY(128, 128, 128, 64, 32, 16);
  COALESCE_REPLAY(128, 128, 128, 32, 64, 16);
  COALESCE_REPLAY(256, 128, 64, 64, 64, 16);
  COALESCE_REPLAY(64, 256, 128, 32, 64, 16);
  COALESCE_REPLAY(256, 256, 64, 64, 64, 16);
  COALESCE_REPLAY(64, 64, 256, 32, 32, 16);
  COALESCE_REPLAY(64, 128, 256, 64, 64, 4);
  COALESCE_REPLAY(32, 64, 64, 16, 16, 8);
  COALESCE_REPLAY(64, 64, 128, 64, 64, 4);
  COALESCE_REPLAY(128, 64, 64, 32, 32, 4);
  // 2-byte plain loads (an odd K or N in bf16/f16): one warp's row of B copies, many per thread.
  COALESCE_REPLAY(32, 64, 64, 16, 16, 2);
  COALESCE_REPLAY(256, 256, 128, 64, 64, 2);
}

}  // namespace
