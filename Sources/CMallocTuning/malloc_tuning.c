// The header holds everything; SwiftPM needs one source file per C target.
