"""flexarray.nn: convolution, pooling, attention and sliding windows."""
