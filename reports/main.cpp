// coalesce-report: turns the results database into markdown / CSV / JSON reports.
#include <CLI/CLI.hpp>

#include "coalesce/version.h"

int main(int argc, char** argv) {
  CLI::App app{"coalesce-report: reports over the Coalesce results database"};
  app.set_version_flag("--version", std::string("coalesce-report ") + COALESCE_VERSION + " (git " +
                                        COALESCE_GIT_REVISION + ")");
  CLI11_PARSE(app, argc, argv);
  return 0;
}
