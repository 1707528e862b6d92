"""Histograms for bench/histogram.py: the atomic update `hist[bins[i]] += w[i]` in a prange,
against private copies written by hand (each of `parts` iterations fills a row of its own over a
block of the input, then a second prange sums the rows), and a sequential loop."""
import numpy as np

import unpython
from unpython import prange


@unpython.gpu
@unpython.type('ndarray[int64,1]', 'ndarray[float64,1]', 'ndarray[float64,1]', None)
def atomic_f64(bins, w, hist):
    for i in prange(bins.shape[0]):
        hist[bins[i]] += w[i]


@unpython.gpu
@unpython.type('ndarray[int64,1]', 'ndarray[int64,1]', 'ndarray[int64,1]', None)
def atomic_i64(bins, w, hist):
    for i in prange(bins.shape[0]):
        hist[bins[i]] += w[i]


@unpython.gpu
@unpython.type('ndarray[int64,1]', 'ndarray[float64,1]', 'ndarray[float64,1]', 'int64', None)
def private_f64(bins, w, hist, parts):
    n = bins.shape[0]
    k = hist.shape[0]
    rows = np.zeros((parts, k))
    block = (n + parts - 1) // parts
    for p in prange(parts):
        for i in range(p * block, min(n, p * block + block)):
            rows[p, bins[i]] += w[i]
    for b in prange(k):
        s = 0.0
        for p in range(parts):
            s += rows[p, b]
        hist[b] += s


@unpython.gpu
@unpython.type('ndarray[int64,1]', 'ndarray[int64,1]', 'ndarray[int64,1]', 'int64', None)
def private_i64(bins, w, hist, parts):
    n = bins.shape[0]
    k = hist.shape[0]
    rows = np.zeros((parts, k), np.int64)
    block = (n + parts - 1) // parts
    for p in prange(parts):
        for i in range(p * block, min(n, p * block + block)):
            rows[p, bins[i]] += w[i]
    for b in prange(k):
        s = 0
        for p in range(parts):
            s += rows[p, b]
        hist[b] += s


@unpython.type('ndarray[int64,1]', 'ndarray[float64,1]', 'ndarray[float64,1]', None)
def serial_f64(bins, w, hist):
    for i in range(bins.shape[0]):
        hist[bins[i]] += w[i]


@unpython.type('ndarray[int64,1]', 'ndarray[int64,1]', 'ndarray[int64,1]', None)
def serial_i64(bins, w, hist):
    for i in range(bins.shape[0]):
        hist[bins[i]] += w[i]
