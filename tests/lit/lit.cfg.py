# lit configuration for the compiler tests (tests/lit/*.mlir).
import os
import lit.formats

config.name = "coalesce"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.coalesce_bin_dir, "tests", "lit")
# Inputs/ holds fixtures that tests read, not tests.
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in", "Inputs"]
path = os.pathsep.join([config.coalesce_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])
config.environment["PATH"] = path
# The source tree, for tests that read files outside tests/lit (the schema's migrations).
config.substitutions.append(("%coalesce_src", config.coalesce_source_dir))
# The build tree, for tests that inspect built libraries (the runtime's symbols).
config.substitutions.append(("%coalesce_build", config.coalesce_bin_dir))
