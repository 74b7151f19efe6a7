this is not an FST file
