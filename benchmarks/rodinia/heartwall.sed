# Our edits to Rodinia heartwall's main.cu and kernel.cu (applied to a copy in
# the build cache). The template half-size (tSize, 25), search half-size
# (sSize, 40) and largest move (maxMove, 10) are constants in main.cu; each
# tracking step costs every one of the 51 blocks a (2 tSize + 1)^2 by
# (2 sSize + 1)^2 correlation (~17M multiply-adds at 25 and 40), too slow to
# simulate at our small presets. They may now come from argv[3..5]; without
# them the program is Rodinia's.
#
# main.cu: accept "heartwall VIDEO FRAMES [TSIZE SSIZE MAXMOVE]".
s|^\tif(argc!=3){$|\tif(argc!=3 \&\& argc!=6){|
s|ERROR: usage: heartwall <inputfile> <num of frames>\\n|ERROR: usage: heartwall <inputfile> <num of frames> [<template half-size> <search half-size> <max move>]\\n|
# The kernel's shared arrays are sized for tSize 25 (in_partial_sum[51],
# d_in_mod_temp[2601] = 51 x 51) and tSize + sSize 65 (par_max_val[131], the
# 2 (tSize + sSize) + 1 rows of the correlation), and the points lie 41 pixels
# or more inside the frame: Rodinia's values are the largest the program
# holds. Every other size in main.cu and kernel.cu is derived from these three.
/^\tcommon.maxMove = 10;$/a\
\tif(argc==6){\
\t\tcommon.tSize = atoi(argv[3]);\
\t\tcommon.sSize = atoi(argv[4]);\
\t\tcommon.maxMove = atoi(argv[5]);\
\t\tif(common.tSize < 1 || common.tSize > 25 || common.sSize < common.tSize || common.sSize > 40 || common.maxMove < 1){\
\t\t\tfprintf(stderr, "heartwall: sizes '%s %s %s' out of range: template half-size 1..25, search half-size from the template half-size to 40, max move >= 1\\n", argv[3], argv[4], argv[5]);\
\t\t\texit(1);\
\t\t}\
\t}\
\tprintf("template half-size %d, search half-size %d, max move %d\\n", common.tSize, common.sSize, common.maxMove);
# kernel.cu: the template is cut (frame 0) and refreshed (every 10th frame)
# around each point with a hard-coded 25; it must be tSize, the half-size the
# rest of the kernel assumes.
s#\(d_unique\[bx\]\.d_\(Row\|Col\)\[d_unique\[bx\]\.point_no\]\) - 25 + \(row\|col\) - 1;#\1 - d_common.tSize + \3 - 1;#
