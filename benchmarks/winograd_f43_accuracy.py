"""Float32 error of Winograd F(4x4, 3x3) against F(2x2, 3x3) and im2col (benchmarks/models.md).

    PYTHONPATH=. python benchmarks/winograd_f43_accuracy.py

F(4x4, 3x3) (6 x 6 input tiles, 4x fewer multiply-adds than im2col) written plainly here
with Lavin and Gray's matrices, computed in float32 (and in float64, a check of the
matrices), on ResNet-18's four 3x3 layer shapes; each error is the largest difference
from a float64 im2col reference over the largest output. It decided that gluonlite keeps
F(2x2, 3x3) only: F(4x4)'s error was 6e-6..1.2e-5, 10-25x im2col's.
"""
import numpy as np

from gluonlite.ops import conv, conv_winograd

BT = np.array([[4, 0, -5, 0, 1, 0], [0, -4, -4, 1, 1, 0], [0, 4, -4, -1, 1, 0],
               [0, -2, -1, 2, 1, 0], [0, 2, -1, -2, 1, 0], [0, 4, 0, -5, 0, 1]], np.float64)
G = np.array([[1 / 4, 0, 0], [-1 / 6, -1 / 6, -1 / 6], [-1 / 6, 1 / 6, -1 / 6],
              [1 / 24, 1 / 12, 1 / 6], [1 / 24, -1 / 12, 1 / 6], [0, 0, 1]])
AT = np.array([[1, 1, 1, 1, 1, 0], [0, 1, -1, 2, -2, 0], [0, 1, 1, 4, 4, 0],
               [0, 1, -1, 8, -8, 1]], np.float64)


def f43(x, w, dt):
    """The 3x3, pad-1 convolution of x (N, C, H, W) with w by F(4x4, 3x3) in dtype dt."""
    n, c, h, wd = x.shape
    f = w.shape[0]
    th, tw = -(-h // 4), -(-wd // 4)
    xp = np.zeros((n, c, 4 * th + 2, 4 * tw + 2), dt)
    xp[:, :, 1:h + 1, 1:wd + 1] = x
    win = np.lib.stride_tricks.sliding_window_view(xp, (6, 6), axis=(2, 3))
    tiles = win[:, :, ::4, ::4]                                   # n, c, th, tw, 6, 6
    bt, g, at = BT.astype(dt), G.astype(dt), AT.astype(dt)
    v = np.einsum("ij,nctujk,lk->ilnctu", bt, tiles, bt, optimize=True).astype(dt)
    u = np.einsum("ij,fcjk,lk->ilfc", g, w.astype(dt), g, optimize=True).astype(dt)
    v2 = v.reshape(36, n, c, th * tw).transpose(0, 2, 1, 3).reshape(36, c, n * th * tw)
    m = np.matmul(u.reshape(36, f, c), v2).reshape(6, 6, f, n, th, tw)
    y = np.einsum("ij,jkfntu,lk->fntiul", at, m, at, optimize=True).astype(dt)
    return y.reshape(f, n, 4 * th, 4 * tw)[:, :, :h, :wd].transpose(1, 0, 2, 3)


def main():
    rng = np.random.default_rng(0)
    for n, c, f, h in [(1, 64, 64, 56), (1, 128, 128, 28), (2, 256, 256, 14),
                       (1, 512, 512, 7)]:
        x = rng.standard_normal((n, c, h, h)).astype(np.float32)
        w = (rng.standard_normal((f, c, 3, 3)) / np.sqrt(9 * c)).astype(np.float32)
        g = conv.Geom((3, 3), (1, 1), (1, 1), (1, 1), (1, 1), (h, h))
        ref = conv.conv_forward(np, x.astype(np.float64), w.astype(np.float64), 1, g)
        scale = np.abs(ref).max()

        def err(y):
            return np.abs(y - ref).max() / scale
        check = err(f43(x.astype(np.float64), w.astype(np.float64), np.float64))
        e43, e23 = err(f43(x, w, np.float32)), err(conv_winograd.forward(x, w, g))
        conv_winograd.ENABLED = False
        try:
            e_im2col = err(conv.conv_forward(np, x, w, 1, g))
        finally:
            conv_winograd.ENABLED = True
        print(f"{(n, c, f, h)}: float64 check {check:.1e} | im2col {e_im2col:.1e}  "
              f"F(2x2) {e23:.1e}  F(4x4) {e43:.1e}")


if __name__ == "__main__":
    main()
