//===- Passes.h - coalesce passes and their pattern sets --------------------===//
// Pass constructors and registration (Passes.td), and the pattern sets the passes apply.
#pragma once

#include <memory>

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace mlir::coalesce {

#define GEN_PASS_DECL
#include "Coalesce/Passes.h.inc"

/// The fusion steps of coalesce-fuse-epilogue: each folds one bias_add, relu or gelu into the
/// matmul or fused matmul that produced its input, where legal.
void populateFuseEpiloguePatterns(RewritePatternSet& patterns);

/// The rewrites of coalesce-lower-to-library: coalesce ops to func.calls of runtime entry
/// points, and device-resident allocs to runtime allocator calls. The pass checks the
/// preconditions (f32, allocs used only by coalesce ops) before applying them.
void populateLowerToLibraryPatterns(RewritePatternSet& patterns);

#define GEN_PASS_REGISTRATION
#include "Coalesce/Passes.h.inc"

}  // namespace mlir::coalesce
