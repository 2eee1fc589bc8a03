N <- 4L
E <- 4L
node1 <- c(1, 1, 2, 3)
node2 <- c(2, 3, 4, 4)
