"""The covariance matrix of the columns of data."""
import numpy as np
import unpython


@unpython.gpu
@unpython.type('ndarray[float64, 2]', 'ndarray[float64, 2]', None)
def covariance(data, cov):
    centred = data - np.mean(data, axis=0)
    cov[:] = centred.T @ centred / (data.shape[0] - 1)
