package rewrite

// Valid exposes the validator so that the fuzz targets can hold it to
// encoding/json's idea of valid JSON.
var Valid = valid
