build value alpha build
view model token cache data view build cache data
index test alpha
config beta render config
build cache test
build value data cache cache render token beta
config token index view
test token beta test model beta user beta
beta beta token
cache view config parse parse
model test model data test cache view
view beta view model beta alpha test token value
cache view index value value parse
view build view alpha beta build test token
test index data parse
test render model user token alpha parse token
alpha view cache render config parse test
token data data render data
build config config data view view token user
beta token config config build build user index user
index config build alpha token render beta
alpha alpha model view data parse view test config
model config model beta beta beta cache cache parse
