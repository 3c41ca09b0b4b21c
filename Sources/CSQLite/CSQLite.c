// The wrappers are all in include/CSQLite.h; a C target needs one source file.
