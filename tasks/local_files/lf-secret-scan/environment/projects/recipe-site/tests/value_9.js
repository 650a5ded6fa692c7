render index alpha model build token
user parse data
view build token token alpha
build config index
token data test value value model build
config value value data alpha user user parse value
test value config render beta user config cache
build beta index alpha
parse beta beta config beta model index config value
data alpha cache render view
test data alpha cache
build view index render cache
build render beta test data model parse data token
render cache parse token token config test data
value token index
data config data view value parse view alpha beta
cache index parse model value model
alpha parse parse parse build
render beta parse
data parse user view token
config cache render parse config value test cache
cache index cache alpha view test config
token view value value user build beta parse view
build index alpha value
token render data build token alpha parse view render
user render index cache
render beta alpha value token view value value
view index parse value value value
build user render data model cache token
value value cache user value beta test user model
user config config test cache build config
build cache user value config render value
cache alpha user index user render index user test
index parse token
view render test cache config beta
beta parse model config view beta cache render index
