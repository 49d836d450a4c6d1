# Parquet files read with nanoparquet (irtbridge.leaderboard.readers._parquet calls these where pyarrow cannot
# be imported). nanoparquet reads flat columns and one-level LIST columns, not structs or deeper nesting:
# irtb_parquet_columns says which top-level columns it can read, so the caller asks only for those.

# The top-level columns of a file, in order, each with readable = TRUE when nanoparquet can read it. The
# schema is depth-first: after the root, each top-level field is followed by all of its descendants.
irtb_parquet_columns <- function(path) {
  s <- nanoparquet::read_parquet_schema(path)
  kids <- s$num_children
  kids[is.na(kids)] <- 0L
  converted <- if ("converted_type" %in% names(s)) s$converted_type else rep(NA_character_, nrow(s))
  name <- character()
  readable <- logical()
  i <- 2L
  while (i <= nrow(s)) {
    start <- i
    todo <- kids[i]
    i <- i + 1L
    while (todo > 0L) {
      todo <- todo - 1L + kids[i]
      i <- i + 1L
    }
    span <- i - start
    # a flat column spans one row; a readable LIST spans three (list, repeated group, primitive element)
    flat_list <- span == 3L && identical(converted[start], "LIST") && kids[start + 2L] == 0L
    name <- c(name, s$name[start])
    readable <- c(readable, span == 1L || flat_list)
  }
  data.frame(name = name, readable = readable, stringsAsFactors = FALSE)
}

# The chosen columns of a file as a plain data.frame (LIST columns stay lists of vectors).
irtb_parquet_read <- function(path, columns) {
  as.data.frame(nanoparquet::read_parquet(path, col_select = columns))
}
