data index alpha parse user beta token
data test data build token parse build
render index beta model parse
cache cache test
cache view alpha index cache
