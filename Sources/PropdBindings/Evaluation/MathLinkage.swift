// Double's rounding and remainder call into libm (trunc, fmod). Importing the
// C library makes the module link libm by itself, so an executable that uses
// PropdBindings without Foundation still links.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
