test beta view token config config model parse alpha
build parse test index parse beta
cache test beta view parse data data alpha value
token index data parse parse token
test data model index view index value user
