//! The system's libcrypto, loaded on first use: the one loader of the
//! algorithms that hash faster on OpenSSL's assembly than on their crates
//! (SHA-384/512 in `sha512`, SHA-3 in `sha3`). Each takes its functions
//! from here with [`function`] and keeps them in a `OnceLock` of its own;
//! a run that hashes none of them never opens the library, and without
//! one (none installed, a static build) their crates hash.

/// The function `name` of the system's libcrypto (`libcrypto.so.3`, else
/// `.so.1.1`), opened on first use with `dlopen` and never closed;
/// `None` when it cannot be opened or has no such symbol. Never in a static
/// binary, which carries its own libc: a dlopen'ed library would bring a
/// second one into the process.
fn symbol(name: &std::ffi::CStr) -> Option<*mut std::ffi::c_void> {
    static LIB: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
    let lib =
        (*LIB.get_or_init(|| crate::sys::open_library(&[c"libcrypto.so.3", c"libcrypto.so.1.1"])))?;
    crate::sys::library_symbol(lib, name)
}

/// libcrypto's function `name`, as the function pointer type `F`.
///
/// SAFETY: `F` must be the `unsafe extern "C" fn` type of `name` as
/// OpenSSL's headers declare it (a data pointer and a function pointer
/// have the same size on every target with dlsym).
pub(crate) unsafe fn function<F: Copy>(name: &std::ffi::CStr) -> Option<F> {
    assert_eq!(size_of::<F>(), size_of::<*mut std::ffi::c_void>());
    let p = symbol(name)?;
    // SAFETY: the caller's promise on `F`; same size, checked above.
    Some(unsafe { std::mem::transmute_copy::<*mut std::ffi::c_void, F>(&p) })
}
