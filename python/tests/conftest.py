"""The CPU tests of the coalesce package (docs/pytorch.md, "Tests"): they import the installed
package, never the source tree (python/coalesce has no native library until pip builds it)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# The source folder python/ must not shadow the installed package when pytest runs from it.
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(HERE)]
