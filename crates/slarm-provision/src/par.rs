//! Order-preserving parallel maps: rayon with the `parallel` feature, a plain loop without it.
//! Every caller collects in input order (or sums integers), so both give the same bits.

/// `f(i)` for every `i` in `range`, in order.
#[cfg(feature = "parallel")]
pub(crate) fn map_range<R: Send>(
    range: std::ops::Range<usize>,
    f: impl Fn(usize) -> R + Sync + Send,
) -> Vec<R> {
    use rayon::prelude::*;
    range.into_par_iter().map(f).collect()
}

/// `f(i)` for every `i` in `range`, in order.
#[cfg(not(feature = "parallel"))]
pub(crate) fn map_range<R: Send>(
    range: std::ops::Range<usize>,
    f: impl Fn(usize) -> R + Sync + Send,
) -> Vec<R> {
    range.map(f).collect()
}

/// `f(x)` for every item of `items`, in order.
#[cfg(feature = "parallel")]
pub(crate) fn map_vec<T: Send, R: Send>(items: Vec<T>, f: impl Fn(T) -> R + Sync + Send) -> Vec<R> {
    use rayon::prelude::*;
    items.into_par_iter().map(f).collect()
}

/// `f(x)` for every item of `items`, in order.
#[cfg(not(feature = "parallel"))]
pub(crate) fn map_vec<T: Send, R: Send>(items: Vec<T>, f: impl Fn(T) -> R + Sync + Send) -> Vec<R> {
    items.into_iter().map(f).collect()
}
