model value model test
model render index config model view
test user data test render
token test index token build token config cache cache
index parse parse data parse index config value
model test index user alpha value parse build
model alpha cache parse
config parse data token token user token model
alpha build model config render model view alpha index
alpha token data beta model model render value
model cache config view parse test beta config
model render render user view token value
token parse user config test
beta view render
alpha data view render data alpha beta
data value config user render token index
cache cache beta cache token user
render value token
cache index cache cache view
view cache alpha test index
user cache render beta view parse model
parse model value
alpha value data value
index config parse
