# lit configuration for the compiler tests (tests/lit/*.mlir).
import os
import lit.formats

config.name = "coalesce"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.coalesce_bin_dir, "tests", "lit")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py.in"]
path = os.pathsep.join([config.coalesce_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])
config.environment["PATH"] = path
