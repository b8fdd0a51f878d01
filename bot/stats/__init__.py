"""/stats: dice counts, the chi-square fairness test and the histogram chart."""
