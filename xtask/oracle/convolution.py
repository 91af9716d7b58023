"""Reference convolutions from scipy.signal.fftconvolve (oracle comparison 2).

Usage: python convolution.py INPUT.json OUTPUT.json

INPUT: {"cases": [{"name": s, "a": FILE, "b": FILE, "out": FILE}, ...]}; each FILE holds
little-endian f64 values (raw, no header), relative to the INPUT's folder. For every case
the full linear convolution of a and b is written to `out` in the same format.
OUTPUT: {"scipy": version, "numpy": version, "done": [names]}.
"""

import json
import os
import sys

import numpy as np
import scipy
from scipy.signal import fftconvolve


def main(inp, out):
    base = os.path.dirname(os.path.abspath(inp))
    with open(inp) as f:
        cases = json.load(f)["cases"]
    done = []
    for case in cases:
        a = np.fromfile(os.path.join(base, case["a"]), dtype="<f8")
        b = np.fromfile(os.path.join(base, case["b"]), dtype="<f8")
        c = fftconvolve(a, b, mode="full")
        c.astype("<f8").tofile(os.path.join(base, case["out"]))
        done.append(case["name"])
    with open(out, "w") as f:
        json.dump({"scipy": scipy.__version__, "numpy": np.__version__, "done": done}, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
