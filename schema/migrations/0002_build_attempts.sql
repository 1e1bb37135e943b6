-- How many NVRTC attempts a build took (issue 13). A compile that fails, or whose cubin gives no
-- resource figures, among the sweep's parallel compiles is tried once more alone (tuner/jit.hpp);
-- 2 says the first attempt failed and the row holds the retry's outcome. Builds stored before
-- this migration took one attempt (there was no retry), hence the default.
ALTER TABLE builds ADD COLUMN attempts INTEGER NOT NULL DEFAULT 1 CHECK (attempts >= 1);
