//! MatrixMarket reading and writing.
