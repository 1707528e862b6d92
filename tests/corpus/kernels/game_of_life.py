"""Conway's game of life on an int64 board with dead borders: the eight neighbour slices summed,
boolean arrays combined with & | ~, np.where back to 0/1."""
import numpy as np

import unpython


@unpython.gpu
@unpython.type('ndarray[int64, 2]', 'int64', 'ndarray[int64, 2]')
def game_of_life(board, steps):
    x = board.copy()
    for t in range(steps):
        nb = (x[:-2, :-2] + x[:-2, 1:-1] + x[:-2, 2:] + x[1:-1, :-2] + x[1:-1, 2:]
              + x[2:, :-2] + x[2:, 1:-1] + x[2:, 2:])
        alive = x[1:-1, 1:-1] == 1
        born = (nb == 3) & ~alive
        survive = ((nb == 2) | (nb == 3)) & alive
        x[1:-1, 1:-1] = np.where(born | survive, 1, 0)
    return x


def inputs(rng, scale=1):
    board = (rng.random((40 * scale, 50 * scale)) < 0.35).astype(np.int64)
    board[0, :] = board[-1, :] = 0
    board[:, 0] = board[:, -1] = 0
    return board, 6


LARGE = 51
FUNCTION = "game_of_life"
