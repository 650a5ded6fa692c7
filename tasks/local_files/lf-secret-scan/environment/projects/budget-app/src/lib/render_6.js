parse parse beta beta model
parse view render data model render data beta
user render test cache cache token cache
index beta build cache parse model alpha token cache
build value index beta view beta value build value
cache config view model beta test data render
user token value user parse
view index index index
value parse alpha test cache
token parse token token view
model cache value token parse token model render
cache value model render index value
view test build
test data user data value parse user parse view
test token build config view data render view test
data render cache view beta
value beta alpha model user alpha
token build config cache parse user token beta index
build data parse config view data
test token render beta data beta user model index
value beta build cache cache parse build
test beta parse beta parse data alpha render cache
config view build data value
build alpha token view data cache alpha value
test data cache data data token model alpha beta
render parse cache token render test model beta cache
token model view parse view user token model
view alpha cache
alpha cache user data render cache view cache render
view beta value
build alpha model data
value render view user alpha view user
alpha model build view test model cache index
alpha alpha view
token alpha token token
view build view value
user cache parse beta value
cache user data alpha render config
parse build view test parse
