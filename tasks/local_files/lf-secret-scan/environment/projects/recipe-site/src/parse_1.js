build config alpha token token
index render beta view token index
model parse cache beta render build data beta parse
token parse user test alpha
parse index cache cache user data beta model render
token view user parse cache test config test view
config token user data index
beta config token
data data user alpha render beta
user user alpha render beta config build build
cache config parse test alpha test view
view model data alpha value
view model view build model view alpha model data
model parse index render value
index view parse cache parse alpha
cache index alpha model cache model user
view model alpha
beta user cache beta parse index beta alpha config
config config token render index cache alpha test value
alpha cache render parse
config token value test render
cache alpha data test render test index
render config test data index
render model test view value config parse
render model user test alpha user user value
value build model
beta view config data
render alpha parse test beta user alpha view alpha
render user alpha parse config data render test view
test value alpha index index build
test model build cache user test
index value parse view render config token
render user beta index test
index render render user render data build
