beta render view config index test beta model beta
view beta alpha user data view parse cache user
model alpha index test alpha parse index data
index token build alpha model index render parse user
value alpha parse token index
data test alpha value value index config view config
index value token token
beta config model token value user
test token user
cache view index index alpha config config config
token parse value
beta config test
render user view parse alpha parse token
index cache value alpha
test cache render user alpha render build token
value beta user cache alpha beta user view
view model model
test model build beta token view data
user cache beta user
render user alpha value render
