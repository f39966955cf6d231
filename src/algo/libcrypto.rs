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
    // the handle, as an address (a raw pointer is not Sync)
    static LIB: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
    if cfg!(target_feature = "crt-static") {
        return None;
    }
    let lib = (*LIB.get_or_init(|| {
        [c"libcrypto.so.3", c"libcrypto.so.1.1"]
            .into_iter()
            .find_map(|file| {
                // SAFETY: a valid C string; RTLD_LOCAL keeps its symbols
                // out of the global namespace.
                let lib = unsafe { libc::dlopen(file.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
                (!lib.is_null()).then_some(lib as usize)
            })
    }))? as *mut std::ffi::c_void;
    // SAFETY: `lib` is a live handle (never closed) and `name` a C string.
    let p = unsafe { libc::dlsym(lib, name.as_ptr()) };
    (!p.is_null()).then_some(p)
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
