data user parse alpha parse view data beta test
cache render build test build test value cache
index value config user index test view
alpha test render test cache parse render parse
value user user test
render view build view value
beta build view token value
view user render build user user
value beta model index test data value value value
parse token user test cache alpha value index
test beta cache cache index
render view token user cache view data
beta test beta render
render view cache
build token data parse parse index
token token index build build data render user
index value parse cache test index token build user
user data token
beta value data build cache beta value parse
model value beta index model build user
alpha value build view value user
test alpha user build test beta data render
parse model view
test cache model token value index beta beta
user test beta model config render
index alpha render index
cache cache token token render token data data
test render index build beta model render cache
