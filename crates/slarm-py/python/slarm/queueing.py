"""M/M/m FCFS response-time formulas and sizing (Hu 2009, sections 4.1-4.2).

Every function takes scalars or numpy arrays, broadcasts them like a numpy ufunc and returns
a ``float``/``int`` for scalar input, else an ``ndarray`` of the broadcast shape. Rates are
per unit of time, ``mu`` is the service rate of one server (default 1, so times are in
mean service times).

``errors="raise"`` (the default) raises ``ValueError`` naming the first bad index and the
model's message; ``errors="mask"`` returns NaN (or -1 for node counts) for the rows without
an answer (an unstable pool, an infeasible SLA, an out-of-range input), so that a sweep over
a grid never stops on one bad point.
"""

from __future__ import annotations

from typing import Any, Dict, List, Sequence, Tuple, Union

import numpy as np

from . import _native

__all__ = [
    "erlang_c",
    "response_cdf",
    "response_quantile",
    "mean_response",
    "min_nodes",
    "size",
]

ArrayLike = Union[float, int, Sequence[float], np.ndarray]


def _floats(name: str, value: Any) -> np.ndarray:
    a = np.asarray(value)
    if a.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be real numbers, got dtype {a.dtype}")
    return a.astype(np.float64, copy=False)


def _ints(name: str, value: Any) -> np.ndarray:
    a = np.asarray(value)
    if a.dtype.kind not in "iu":
        raise TypeError(f"{name} must be integers, got dtype {a.dtype}")
    if a.dtype.kind == "u" and a.size and int(a.max()) > np.iinfo(np.int64).max:
        raise ValueError(f"{name} must be at most {np.iinfo(np.int64).max}")
    return a.astype(np.int64, copy=False)


def _call(native: Any, named: List[Tuple[str, np.ndarray]], errors: str) -> Any:
    if errors not in ("raise", "mask"):
        raise ValueError(f'errors must be "raise" or "mask", got {errors!r}')
    try:
        arrays = np.broadcast_arrays(*[a for _, a in named])
    except ValueError:
        shapes = ", ".join(f"{n} {a.shape}" for n, a in named)
        raise ValueError(f"shapes do not broadcast together: {shapes}") from None
    shape = arrays[0].shape
    flat = [np.ascontiguousarray(a.reshape(-1)) for a in arrays]
    values, bad = native(*flat, errors == "raise")
    if bad is not None and errors == "raise":
        index, message = bad
        if shape == ():
            raise ValueError(message)
        at = np.unravel_index(index, shape)
        where = str(int(at[0])) if len(at) == 1 else str(tuple(int(i) for i in at))
        raise ValueError(f"at index {where}: {message}")
    out = values.reshape(shape)
    return out.item() if shape == () else out


def erlang_c(lam: ArrayLike, servers: ArrayLike, mu: ArrayLike = 1.0, *, errors: str = "raise") -> Any:
    """Erlang C: the probability that an arriving job waits in an M/M/m pool.

    ``lam`` arrival rate (>= 0), ``servers`` number of servers m (integers), ``mu`` service
    rate (> 0); needs ``lam < m * mu``. Same value as ``slarm queue cdf --json``'s
    ``erlang_c``.

    >>> round(erlang_c(1.0, 2), 12)
    0.333333333333
    """
    return _call(
        _native.erlang_c,
        [("lam", _floats("lam", lam)), ("servers", _ints("servers", servers)), ("mu", _floats("mu", mu))],
        errors,
    )


def mean_response(lam: ArrayLike, servers: ArrayLike, mu: ArrayLike = 1.0, *, errors: str = "raise") -> Any:
    """Mean response time ``1/mu + C / (m mu - lam)`` of an M/M/m FCFS pool."""
    return _call(
        _native.mean_response,
        [("lam", _floats("lam", lam)), ("servers", _ints("servers", servers)), ("mu", _floats("mu", mu))],
        errors,
    )


def response_cdf(
    lam: ArrayLike, servers: ArrayLike, x: ArrayLike, mu: ArrayLike = 1.0, *, errors: str = "raise"
) -> Any:
    """``F(x) = P(T <= x)``, the response-time CDF of an M/M/m FCFS pool (Hu 2009, Eq. 4.1).

    ``x`` must be finite. Same value as ``slarm queue cdf --json``'s ``cdf``.
    """
    return _call(
        _native.response_cdf,
        [
            ("lam", _floats("lam", lam)),
            ("servers", _ints("servers", servers)),
            ("x", _floats("x", x)),
            ("mu", _floats("mu", mu)),
        ],
        errors,
    )


def response_quantile(
    lam: ArrayLike, servers: ArrayLike, p: ArrayLike, mu: ArrayLike = 1.0, *, errors: str = "raise"
) -> Any:
    """The ``p``-quantile of the response time (the inverse of :func:`response_cdf`),
    for ``p`` in ``[0, 1)``: the smallest ``x`` with ``F(x) >= p``, within 1e-12 relative."""
    return _call(
        _native.response_quantile,
        [
            ("lam", _floats("lam", lam)),
            ("servers", _ints("servers", servers)),
            ("p", _floats("p", p)),
            ("mu", _floats("mu", mu)),
        ],
        errors,
    )


def min_nodes(lam: ArrayLike, x: ArrayLike, y: ArrayLike, mu: ArrayLike = 1.0, *, errors: str = "raise") -> Any:
    """Minimum number of servers m with ``P(T <= x) >= y`` (Algorithm 1 of Hu 2009, §4.2).

    Returns an ``int`` (or an int64 array; -1 where masked). ``lam = 0`` needs 0 nodes; an
    SLA with ``y >= 1 - exp(-mu x)`` is infeasible at any size. Many rows are answered
    together by the batch search of slarm-queueing, each answer equal to the one-query
    search (and to ``slarm queue size --batch``).

    >>> min_nodes(40.0, 3.0, 0.95)
    52
    """
    return _call(
        _native.min_nodes_rows,
        [("lam", _floats("lam", lam)), ("x", _floats("x", x)), ("y", _floats("y", y)), ("mu", _floats("mu", mu))],
        errors,
    )


def size(classes: Union[Sequence[Sequence[float]], np.ndarray], mu: float = 1.0) -> Dict[str, Any]:
    """Multiclass sizing of ``slarm queue size`` (FCFS): nodes per class when each class has
    its own pool (DA), nodes of every set partition of the classes into shared pools (SA is
    one pool for all), the best partition and Hu's heuristic choice (Algorithm 2 for two
    classes, Algorithm 3 for three; Hu 2009, §4.4 and §6.2).

    ``classes`` is a sequence of ``(lambda, x, y)`` triples (SLA ``P(T <= x) >= y``) or an
    array of shape (n, 3). Returns a dict with the keys of ``slarm queue size --json``:
    ``mu``, ``classes``, ``strategies``, ``best``, ``heuristic`` (None for other than two or
    three classes) and ``discipline``.
    """
    rows = np.asarray(classes, dtype=np.float64) if not isinstance(classes, np.ndarray) else classes
    if rows.dtype.kind not in "iuf":
        raise TypeError(f"classes must be numbers, got dtype {rows.dtype}")
    if rows.ndim != 2 or rows.shape[1] != 3:
        raise ValueError(f"classes must be (lambda, x, y) triples (shape (n, 3)), got shape {rows.shape}")
    triples = [(float(r[0]), float(r[1]), float(r[2])) for r in rows]
    dedicated, strategies, best, heuristic = _native.size_classes(triples, float(mu))
    return {
        "mu": float(mu),
        "classes": [
            {"class": i + 1, "lambda": t[0], "x": t[1], "y": t[2], "dedicated_nodes": d}
            for i, (t, d) in enumerate(zip(triples, dedicated))
        ],
        "strategies": [{"partition": p, "nodes": n} for p, n in strategies],
        "best": {"partition": strategies[best][0], "nodes": strategies[best][1]},
        "heuristic": None if heuristic is None else {"partition": heuristic[0], "nodes": heuristic[1]},
        "discipline": "fcfs",
    }
