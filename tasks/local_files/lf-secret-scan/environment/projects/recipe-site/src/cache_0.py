beta parse test view render
model config token value
beta alpha config
cache token view beta alpha token model model
cache data user test config test token config
beta build user index build
config render config
alpha build value cache index
index user test alpha alpha config parse
build cache beta index build beta
render config test
config cache index beta alpha config
user alpha model
alpha view model user beta
render data token index data parse render model render
render config user parse token beta
value index user config value user
index value alpha config build test view user
value alpha token
index render index parse parse cache value index
test cache view test alpha data config index build
config value config parse token render index parse parse
value user index
cache index alpha alpha cache view value test
render test cache index
build parse data render model test alpha user beta
data user parse parse beta
