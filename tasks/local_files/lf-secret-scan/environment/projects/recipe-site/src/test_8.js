token test data user
value model view beta test
model index view value data config user beta
model user index data data data
user render index model user index model config user
config index value user cache alpha render
model test index
data config view test view index build alpha
beta beta config model value parse index render beta
beta build data test
value view token
view beta data token beta
parse view alpha alpha cache model index model
render user render render config index build test data
model render config token parse cache model view value
beta token cache view render beta
value parse token user token view render build
beta data build alpha index data beta
cache model build parse beta build index model
alpha token config view
