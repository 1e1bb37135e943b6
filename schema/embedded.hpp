// A text file embedded in a binary at build time by schema/EmbedFiles.cmake (the schema's SQL
// migrations, the report's plotting script): the tools carry them, so a binary copied to the
// GPU host needs no source tree beside it.
#pragma once

#include <cstddef>
#include <string_view>

namespace coalesce {

/// One embedded file: its name without directory, and its bytes.
struct EmbeddedFile {
  std::string_view name;
  std::string_view text;
};

}  // namespace coalesce
