//! DRAM block traces (format in the next commit).
