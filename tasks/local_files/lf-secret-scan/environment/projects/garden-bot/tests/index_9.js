view cache alpha config view beta model
build user user data value
alpha user index data user value build user
view beta model test beta token
value user build index model parse value parse
model cache config data user config view cache
cache view alpha value test view config config config
value token view model index parse config data
render parse data
data test build test token
alpha config test model model test alpha
parse render user model beta test user
cache view beta value
view alpha config cache index
beta beta index value value parse token parse render
build token config value data
test config token beta data token beta
token token index config render view
view beta user user
index index parse user
render user model data alpha model value config data
token value alpha alpha view test
user parse beta render model value value view
render config beta parse view test
index parse beta
render beta user user cache view value model
