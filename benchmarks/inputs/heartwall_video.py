#!/usr/bin/env python3
"""A moving test video for Rodinia heartwall, with the known track of every point.

    heartwall_video.py make --frames N [--seed S] [--template T --search S --max-move M]
                            --out VIDEO.avi --shifts SHIFTS [--sizes SIZES]
    heartwall_video.py check SHIFTS RESULT
    heartwall_video.py values RESULT

make: VIDEO.avi holds N uncompressed 8-bit grey frames of 640 x 600 pixels
(heartwall's points lie within rows 252..543 and columns 155..457 and it
searches 40 pixels around them). Frame 0 is a textured image (smooth random
shading plus per-pixel noise); frame k is frame 0 moved by (dy_k, dx_k) whole
pixels, a random walk with steps of at most 1 pixel kept within +-4 (inside
heartwall's 10 x 10 search mask around the last position). Heartwall tracks
each point by normalised cross-correlation with a template cut from frame 0;
on a moved copy of the image the correlation is 1 exactly at the moved
point, so the right track of every point is its frame-0 position plus
(dy_k, dx_k). SHIFTS: one "dy dx" line per frame.

--template, --search, --max-move: the half-sizes and largest move the program
will use (Rodinia's 25, 40 and 10 by default; our heartwall.sed takes them as
arguments). make exits naming the frame if the walk could leave what the
program searches (see walk_fits); SIZES gets "T S M" for the program's argv.

check: RESULT (heartwall's result.txt, built with -DOUTPUT) lists every
endo and epi point's row and column in each processed frame; all of them,
in every frame k, must equal the frame-0 ones plus (dy_k, dx_k). Exit 1
naming the first difference. Deterministic: the same arguments give the
same bytes.

values: RESULT's coordinates, one per line (see values()).
"""
import argparse
import random
import re
import struct
import sys

WIDTH, HEIGHT = 640, 600
MAX_SHIFT = 4
GRID = 16  # spacing of the smooth shading's random control points
NOISE = 40  # per-pixel noise amplitude (grey levels)


def base_image(seed):
    """(HEIGHT + 2 * MAX_SHIFT) x (WIDTH + 2 * MAX_SHIFT) grey levels, row-major."""
    rng = random.Random(seed)
    rows, cols = HEIGHT + 2 * MAX_SHIFT, WIDTH + 2 * MAX_SHIFT
    grid_rows, grid_cols = rows // GRID + 2, cols // GRID + 2
    grid = [[rng.uniform(40, 200) for _ in range(grid_cols)] for _ in range(grid_rows)]
    image = []
    for r in range(rows):
        gr, fr = divmod(r, GRID)
        fr /= GRID
        line = bytearray(cols)
        for c in range(cols):
            gc, fc = divmod(c, GRID)
            fc /= GRID
            shade = ((grid[gr][gc] * (1 - fc) + grid[gr][gc + 1] * fc) * (1 - fr)
                     + (grid[gr + 1][gc] * (1 - fc) + grid[gr + 1][gc + 1] * fc) * fr)
            line[c] = max(0, min(255, int(shade + rng.uniform(-NOISE, NOISE))))
        image.append(bytes(line))
    return image


def shifts(frames, seed):
    rng = random.Random(seed + 1)
    walk, dy, dx = [(0, 0)], 0, 0
    for _ in range(frames - 1):
        dy = max(-MAX_SHIFT, min(MAX_SHIFT, dy + rng.choice((-1, 0, 1))))
        dx = max(-MAX_SHIFT, min(MAX_SHIFT, dx + rng.choice((-1, 0, 1))))
        walk.append((dy, dx))
    return walk


def walk_fits(walk, template, search, max_move):
    """None if heartwall, with these sizes, searches every move of the walk
    where the template lies wholly inside its search area, else the first
    frame that it does not.

    For frame k (per axis) the program correlates the template with the
    search area around the point's reference position (the frame-0 one; after
    every 10th frame, the position found then), and keeps the best match
    among the moves [p - lo, p - lo + max_move - 1] from that reference, p
    being the move found in frame k - 1 and lo = ceil((max_move - 1) / 2)
    (its max_move x max_move mask). The match is exact only where the
    template lies inside the search area, moves within +-(search - template):
    the whole mask must lie there, so no partial-overlap value can win."""
    lo = max_move // 2  # ceil((max_move - 1) / 2): the mask convolution's offset
    hi = max_move - 1 - lo
    full = search - template
    for k in range(1, len(walk)):
        reference = walk[10 * ((k - 1) // 10)]
        for axis in (0, 1):
            previous = walk[k - 1][axis] - reference[axis]
            now = walk[k][axis] - reference[axis]
            if not (previous - lo <= now <= previous + hi
                    and previous - lo >= -full and previous + hi <= full):
                return k
    return None


def frame_bytes(image, dy, dx):
    """The frame moved by (dy, dx) as heartwall reads it: avimod.c flips rows
    (the AVI's last row is the program's row 0)."""
    rows = []
    for row in range(HEIGHT):
        source = image[row - dy + MAX_SHIFT]
        rows.append(source[MAX_SHIFT - dx:MAX_SHIFT - dx + WIDTH])
    return b"".join(reversed(rows))


def chunk(tag, payload):
    pad = b"\0" if len(payload) % 2 else b""
    return tag + struct.pack("<I", len(payload)) + payload + pad


def avi(frames):
    """An uncompressed AVI (one 8-bit video stream, no index: avilib scans the
    movi list for 00db chunks)."""
    size = WIDTH * HEIGHT
    avih = struct.pack("<14I", 40000, size * 25, 0, 0, len(frames), 0, 1, size,
                       WIDTH, HEIGHT, 0, 0, 0, 0)
    strh = struct.pack("<4s4sIHHIIIIIIII4h", b"vids", b"\0\0\0\0", 0, 0, 0, 0, 1, 25, 0,
                       len(frames), size, 0, 0, 0, 0, WIDTH, HEIGHT)
    strf = struct.pack("<IiiHHIIiiII", 40, WIDTH, HEIGHT, 1, 8, 0, size, 0, 0, 256, 0)
    strf += bytes(4 * 256)  # grey palette entries (unused by heartwall)
    strl = chunk(b"LIST", b"strl" + chunk(b"strh", strh) + chunk(b"strf", strf))
    hdrl = chunk(b"LIST", b"hdrl" + chunk(b"avih", avih) + strl)
    movi = chunk(b"LIST", b"movi" + b"".join(chunk(b"00db", f) for f in frames))
    return chunk(b"RIFF", b"AVI " + hdrl + movi)


def make(args):
    walk = shifts(args.frames, args.seed)
    frame = walk_fits(walk, args.template, args.search, args.max_move)
    if frame is not None:
        sys.exit(f"heartwall_video: --template {args.template} --search {args.search} "
                 f"--max-move {args.max_move}: frame {frame}'s move {walk[frame]} (from "
                 f"{walk[frame - 1]}) is outside the moves heartwall searches exactly")
    image = base_image(args.seed)
    with open(args.out, "wb") as out:
        out.write(avi([frame_bytes(image, dy, dx) for dy, dx in walk]))
    with open(args.shifts, "w") as out:
        out.write("".join(f"{dy} {dx}\n" for dy, dx in walk))
    if args.sizes:
        with open(args.sizes, "w") as out:
            out.write(f"{args.template} {args.search} {args.max_move}\n")


def parse_result(path):
    """[(endo rows, endo cols, epi rows, epi cols)] per frame of result.txt."""
    with open(path, errors="replace") as f:
        text = f.read()
    frames = []
    for block in re.split(r"---Frame \d+---", text)[1:]:
        endo, epi = block.split("--epi--")
        endo_rows, endo_cols = [[int(x) for x in line.split()] for line in endo.split("--endo--")[1].strip().split("\n")]
        epi_rows, epi_cols = [[int(x) for x in line.split()] for line in epi.strip().split("\n")]
        frames.append((endo_rows, endo_cols, epi_rows, epi_cols))
    return frames


def check(shifts_path, result_path):
    with open(shifts_path) as f:
        walk = [tuple(int(x) for x in line.split()) for line in f if line.strip()]
    try:
        frames = parse_result(result_path)
    except (OSError, ValueError, IndexError) as error:
        sys.exit(f"heartwall_video: cannot read {result_path}: {error}")
    if len(frames) != len(walk):
        sys.exit(f"heartwall_video: {len(frames)} frames in {result_path}, {len(walk)} in the video")
    first = frames[0]
    points = len(first[0]) + len(first[2])
    for k, ((dy, dx), got) in enumerate(zip(walk, frames)):
        for name, axis, start, now in zip(("endo row", "endo col", "epi row", "epi col"),
                                          (dy, dx, dy, dx), first, got):
            if len(now) != len(start):
                sys.exit(f"heartwall_video: frame {k}: {len(now)} {name}s, frame 0 has {len(start)}")
            for point, (a, b) in enumerate(zip(start, now)):
                if b != a + axis:
                    sys.exit(f"heartwall_video: frame {k}, {name} of point {point}: {b}, "
                             f"expected {a} + {axis} (the image moved by {dy}, {dx})")
    print(f"heartwall_video: all {points} points follow the image in all {len(walk)} frames")


def values(result_path):
    """Every frame's point coordinates (endo rows, endo cols, epi rows, epi
    cols), one per line: the output values a lossy codec's output error is
    measured on (benchmarks/README.md, "Output values")."""
    try:
        frames = parse_result(result_path)
    except (OSError, ValueError, IndexError) as error:
        sys.exit(f"heartwall_video: cannot read {result_path}: {error}")
    sys.stdout.write("".join(f"{v}\n" for frame in frames for part in frame for v in part))


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "values":
        if len(sys.argv) != 3:
            sys.exit("usage: heartwall_video.py values RESULT")
        values(sys.argv[2])
        return
    if len(sys.argv) > 1 and sys.argv[1] == "check":
        if len(sys.argv) != 4:
            sys.exit("usage: heartwall_video.py check SHIFTS RESULT")
        check(sys.argv[2], sys.argv[3])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["make"])
    parser.add_argument("--frames", type=int, required=True)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", required=True)
    parser.add_argument("--shifts", required=True)
    parser.add_argument("--template", type=int, default=25, help="template half-size (Rodinia: 25)")
    parser.add_argument("--search", type=int, default=40, help="search half-size (Rodinia: 40)")
    parser.add_argument("--max-move", type=int, default=10, help="mask size (Rodinia: 10)")
    parser.add_argument("--sizes", help="file for 'TEMPLATE SEARCH MAX_MOVE' (the program's argv)")
    args = parser.parse_args()
    if args.frames < 1:
        parser.error("--frames must be >= 1")
    if not (1 <= args.template <= 25 and args.template <= args.search <= 40 and args.max_move >= 1):
        parser.error("sizes out of heartwall's range: --template 1..25, --search from --template to 40, --max-move >= 1")
    make(args)


if __name__ == "__main__":
    main()
