//! Enums whose variants carry the `int32_t` codes of the C API, declared once
//! (`docs/architecture.md`, "The file set of a solver folder").
//!
//! Every solver has a few: its outcome (the code is the C status, `docs/c_api.md` §2), the
//! selectors of its parameters and problem data (contact model, Newton solve, Lemke variant,
//! sensitivity parameter, ...) and the sets it reports. [`coded_enum!`] writes each one's
//! `repr(i32)` declaration with its codes and the lookup by code ([`Coded`]), so that the
//! solver's file states only the table `code => Variant` with the docs. A bottom layer: it
//! imports nothing of the crate, and the C-only `cts_status` enum (read by cbindgen, which
//! does not expand macros) stays written out in `ffi/status.rs`.

/// An enum declared with [`coded_enum!`]: its variants and their C codes.
pub trait Coded: Copy + 'static {
    /// Every variant, in declaration order.
    const ALL: &'static [Self];

    /// The C code of the variant.
    fn code(self) -> i32;

    /// The variant with C code `code`, if any.
    fn from_code(code: i32) -> Option<Self> {
        Self::ALL.iter().copied().find(|v| v.code() == code)
    }
}

/// Declares a `repr(i32)` enum from a table of `code => Variant` rows (each with its docs and
/// attributes), and implements [`Coded`] for it. Followed by `pub const ALL;` and/or
/// `pub fn from_code;` (each with its docs), it also gives the enum those public items: the
/// array of every variant in declaration order and the lookup by code.
macro_rules! coded_enum {
    (@items $name:ident [$($variant:ident = $code:literal)+]) => {};
    (
        @items $name:ident [$($variant:ident = $code:literal)+]
        $(#[$item_meta:meta])* pub const ALL; $($rest:tt)*
    ) => {
        impl $name {
            $(#[$item_meta])*
            pub const ALL: [Self; [$($code),+].len()] = [$(Self::$variant),+];
        }
        $crate::coded::coded_enum!(@items $name [$($variant = $code)+] $($rest)*);
    };
    (
        @items $name:ident [$($variant:ident = $code:literal)+]
        $(#[$item_meta:meta])* pub fn from_code; $($rest:tt)*
    ) => {
        impl $name {
            $(#[$item_meta])*
            pub fn from_code(code: i32) -> Option<Self> {
                <Self as $crate::coded::Coded>::from_code(code)
            }
        }
        $crate::coded::coded_enum!(@items $name [$($variant = $code)+] $($rest)*);
    };
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$vmeta:meta])* $code:literal => $variant:ident, )+
        }
        $($items:tt)*
    ) => {
        $(#[$meta])*
        #[repr(i32)]
        $vis enum $name {
            $( $(#[$vmeta])* $variant = $code, )+
        }

        impl $crate::coded::Coded for $name {
            const ALL: &'static [Self] = &[$(Self::$variant),+];

            fn code(self) -> i32 {
                self as i32
            }
        }

        $crate::coded::coded_enum!(@items $name [$($variant = $code)+] $($items)*);
    };
}
pub(crate) use coded_enum;
