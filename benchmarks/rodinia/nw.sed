# Our edit to Rodinia needle.cu (applied to a copy in the build cache).
# The program prints no result: after the device-to-host copy, recompute the
# whole score matrix on the host (the same recurrence, row by row, from the
# same borders and BLOSUM62 scores still in input_itemsets / referrence) and
# print how many of the GPU's scores differ, plus a checksum.
/cudaMemcpy(output_itemsets, matrix_cuda,/a\
  { int bad = 0; long long sum = 0; for (int i = 1; i < max_rows; i++) for (int j = 1; j < max_cols; j++) input_itemsets[i * max_cols + j] = maximum(input_itemsets[(i - 1) * max_cols + j - 1] + referrence[i * max_cols + j], input_itemsets[i * max_cols + j - 1] - penalty, input_itemsets[(i - 1) * max_cols + j] - penalty); for (int k = 0; k < size; k++) { bad += output_itemsets[k] != input_itemsets[k]; sum += output_itemsets[k]; } printf("memzip-check nw mismatches %d of %d checksum %lld\\n", bad, size, sum); }
