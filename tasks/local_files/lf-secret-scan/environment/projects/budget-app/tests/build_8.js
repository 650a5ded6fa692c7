cache model model data build
cache value render token data
data cache user index data
test data beta alpha test cache
data view render
config parse parse model cache alpha
render token parse beta config
parse cache value render
index build index config token model config
data model value test
cache view config cache test index view
build model data build build model value alpha
value value build cache data test view
beta alpha render render user cache alpha
index data value data
